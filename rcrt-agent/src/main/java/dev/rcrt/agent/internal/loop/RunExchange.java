package dev.rcrt.agent.internal.loop;

import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The way back from a tool an agent's run calls in this process: its caller is the run.
 *
 * <ul>
 *   <li><b>Sampling</b> asks the run's own model (the agent's client and model), only when the
 *       tool's record allows it with {@code "permissions": {"sampling": true}} (a record only a
 *       trusted writer makes runnable), for at most {@value #MAX_TOKENS} tokens an answer (the
 *       runner allows 8 samplings a call). A refusal or a filtered answer is {@code tool_denied};
 *       a cut-off answer comes back with stop reason {@code maxTokens}.
 *   <li><b>Elicitation</b> asks the run's user through the store ({@link RunQuestions}): the
 *       question is recorded as an {@code input.request.v1} and the run waits, holding no thread,
 *       until a person answers it; the call then runs again and gets the recorded answers to its
 *       questions in the order it asks them (the call's {@code n}-th question, the {@code n}-th
 *       answer).
 *   <li><b>Progress and log messages</b> reach the runner's {@code ToolEventListener}s, as every
 *       call's do; log messages also go to the SLF4J logger {@code dev.rcrt.tools.log}, naming the
 *       run.
 * </ul>
 *
 * One per call (it counts the call's questions); thread-safe.
 */
final class RunExchange implements ToolExchange {
  /** The most tokens one sampling may ask the run's model for. */
  static final int MAX_TOKENS = 4_096;

  private final LlmClient llm;
  private final String model;
  private final @Nullable ToolDefinition tool;
  private final String toolName;
  private final String agentId;
  private final String runId;
  private final String requestId;
  private final List<String> tags;
  private final RunQuestions questions;
  /** How many questions the call asked so far: the next one's place. */
  private final AtomicInteger asked = new AtomicInteger();

  /**
   * @param requestId the call's {@code tool.request.v1}
   * @param tags the call's {@code session:} and {@code run:} tags
   */
  RunExchange(LlmClient llm, String model, @Nullable ToolDefinition tool, String toolName, String agentId, String runId, String requestId,
      List<String> tags, RunQuestions questions) {
    this.llm = llm;
    this.model = model;
    this.tool = tool;
    this.toolName = toolName;
    this.agentId = agentId;
    this.runId = runId;
    this.requestId = requestId;
    this.tags = List.copyOf(tags);
    this.questions = questions;
  }

  @Override
  public void progress(double progress, @Nullable Double total, @Nullable String message) {
    // the runner's listeners heard it; a run has no one else to tell
  }

  @Override
  public void log(LogLevel level, String message) {
    ToolExchange.none().log(level, "run " + runId + ", tool '" + toolName + "': " + message);
  }

  @Override
  public Sampled sample(Sampling request) {
    if (tool == null || !tool.context().path("permissions").path("sampling").asBoolean(false)) {
      throw new ToolException(ToolErrorCode.TOOL_CAPABILITY_DENIED, "tool '" + toolName + "' asked agent '" + agentId
          + "''s model (sampling), which its record does not allow; a trusted writer allows it with \"permissions\": {\"sampling\": true}");
    }
    List<ChatMessage> messages = new ArrayList<>();
    if (request.systemPrompt() != null) {
      messages.add(ChatMessage.system(request.systemPrompt()));
    }
    for (SamplingMessage m : request.messages()) {
      messages.add("assistant".equals(m.role()) ? ChatMessage.assistant(m.text(), List.of()) : ChatMessage.user(m.text()));
    }
    ChatOptions options = new ChatOptions(null, Math.min(request.maxTokens(), MAX_TOKENS), null, null, null, null, List.of());
    ChatResponse answer = llm.chat(ChatRequest.of(model, messages).withOptions(options));
    String text = answer.message().content() == null ? "" : answer.message().content();
    return switch (answer.outcome()) {
      case REFUSED -> throw new ToolException(ToolErrorCode.TOOL_DENIED, "tool '" + toolName + "': the model refused its sampling request");
      case CONTENT_FILTERED -> throw new ToolException(ToolErrorCode.TOOL_DENIED, "tool '" + toolName + "': the model's content filter withheld the answer");
      case TRUNCATED -> new Sampled(text, answer.model() != null ? answer.model() : model, "maxTokens");
      case COMPLETE -> new Sampled(text, answer.model() != null ? answer.model() : model, "endTurn");
    };
  }

  @Override
  public Elicited elicit(Elicitation request) {
    return questions.ask(requestId, asked.incrementAndGet(), toolName, runId, tags, request);
  }
}
