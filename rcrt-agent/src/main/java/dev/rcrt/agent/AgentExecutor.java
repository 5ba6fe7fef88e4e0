package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an agent's turns: for each trigger (an RCRT {@code user.message.v1} breadcrumb with {@code
 * context.content} and a {@code session:<id>} tag) it
 *
 * <ol>
 *   <li>discovers the tools in the store (a tool written a moment ago is offered on the next turn);
 *   <li>builds the messages: the agent's system prompt, the tool instructions, the session's
 *       earlier messages, the trigger;
 *   <li>asks the {@link LlmClient}, offering the tools as OpenAI {@code tools};
 *   <li>for each tool call, writes a {@code tool.request.v1}, runs it through the {@link
 *       ToolRunner} (which writes the {@code tool.response.v1}), and sends the result back as a
 *       {@code role: tool} message with the call's {@code tool_call_id};
 *   <li>repeats until the model answers without tool calls or the round limit is reached;
 *   <li>writes an {@code agent.response.v1} ({@code context.message}, tags {@code agent:response}
 *       and the session tag).
 * </ol>
 *
 * <p>An unknown tool name, arguments that are not JSON, and arguments that break the tool's schema
 * go back to the model as tool messages saying what is wrong, so it can correct itself; they never
 * abort the turn. Reaching the round limit ends the turn with a response that says so. A failure to
 * talk to the model is an {@link LlmException} from {@link #answer}; in subscribed mode ({@link
 * #start()}) it is recorded as an {@code agent.response.v1} with {@code status: "error"} instead.
 *
 * <p>Thread-safe: turns for different triggers may run at once.
 */
public final class AgentExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(AgentExecutor.class);

  /** The schema of triggers. */
  public static final String USER_MESSAGE = "user.message.v1";

  /** The schema of answers. */
  public static final String AGENT_RESPONSE = "agent.response.v1";

  private final BreadcrumbStore store;
  private final LlmClient llm;
  private final ToolRunner runner;
  private final AgentDefinition agent;
  private final int maxRounds;
  private final int historyLimit;
  private final ToolPromptAdapter adapter = new ToolPromptAdapter();

  private AgentExecutor(Builder b) {
    this.store = b.runner.store();
    this.llm = b.llm;
    this.runner = b.runner;
    this.agent = Objects.requireNonNull(b.agent, "agent");
    this.maxRounds = b.maxRounds;
    this.historyLimit = b.historyLimit;
  }

  /**
   * Starts a builder. The executor reads tools from and writes breadcrumbs to {@code
   * runner.store()}.
   */
  public static Builder builder(LlmClient llm, ToolRunner runner) {
    return new Builder(llm, runner);
  }

  /**
   * A {@code user.message.v1} breadcrumb to write as a trigger: {@code context {content,
   * session_id}}, tags {@code user:message} and {@code session:<sessionId>}.
   */
  public static BreadcrumbCreate userMessage(String sessionId, String content) {
    ObjectNode context = RcrtJson.object().put("content", content).put("session_id", sessionId);
    return BreadcrumbCreate.builder(USER_MESSAGE, "User message")
        .context(context)
        .tags("user:message", "session:" + sessionId)
        .createdBy("user")
        .build();
  }

  /** The agent this executor runs. */
  public AgentDefinition agent() {
    return agent;
  }

  /**
   * Answers one trigger and writes the {@code agent.response.v1}.
   *
   * @param trigger a stored {@code user.message.v1} breadcrumb
   * @return the stored response breadcrumb
   * @throws ValidationException if the trigger has no {@code context.content}
   * @throws LlmException if the model cannot be asked; tool failures never throw
   */
  public Breadcrumb answer(Breadcrumb trigger) {
    String content = trigger.contextText("content");
    if (content == null) {
      throw new ValidationException(
          "user message '" + trigger.id() + "' context/content: required, found none");
    }
    String session = sessionOf(trigger);
    LoadReport<ToolDefinition> tools = runner.discovery().discover();
    tools.problems().forEach(p -> LOG.warn("tool breadcrumb skipped: {}", p));
    ToolPrompt prompt = adapter.adapt(tools.items());

    List<ChatMessage> messages = new ArrayList<>();
    messages.add(ChatMessage.system(agent.systemPrompt()));
    if (!prompt.text().isEmpty()) {
      messages.add(ChatMessage.system(prompt.text()));
    }
    messages.addAll(history(trigger, session));
    messages.add(ChatMessage.user(content));

    Turn turn = new Turn();
    String answer = null;
    while (answer == null && turn.rounds < maxRounds) {
      turn.rounds++;
      ChatResponse response =
          llm.chat(new ChatRequest(agent.model(), messages, prompt.tools(), agent.temperature()));
      turn.add(response.usage());
      ChatMessage assistant = response.message();
      if (!assistant.hasToolCalls()) {
        answer = assistant.content() == null ? "" : assistant.content();
      } else {
        messages.add(assistant);
        for (ToolCall call : assistant.toolCalls()) {
          turn.toolCalls++;
          messages.add(ChatMessage.tool(call.id(), runCall(call, prompt, session)));
        }
      }
    }
    boolean limited = answer == null;
    if (limited) {
      answer =
          "I stopped after " + maxRounds + " rounds of tool calls without reaching a final answer"
              + " (the round limit is " + maxRounds + "). Please ask again, more specifically.";
    }
    ObjectNode context = responseContext(answer, session, trigger, turn);
    context.put("status", limited ? "round_limit" : "success");
    return store.create(response(context, session));
  }

  /**
   * Subscribes to the agent's trigger selectors and answers each new matching {@code
   * user.message.v1}, one at a time per selector, on the store's event thread. Model failures are
   * recorded as error responses; nothing escapes.
   *
   * @return closes every subscription; answers already running finish
   */
  public Subscription start() {
    List<Selector> selectors =
        agent.subscriptions().isEmpty() ? List.of(Selector.schema(USER_MESSAGE)) : agent.subscriptions();
    List<Subscription> subs = new ArrayList<>();
    for (Selector selector : selectors) {
      subs.add(store.subscribe(selector, this::onEvent));
    }
    return () -> subs.forEach(Subscription::close);
  }

  private void onEvent(BreadcrumbEvent event) {
    Breadcrumb trigger = event.breadcrumb();
    if (event.type() != BreadcrumbEvent.Type.CREATED || !USER_MESSAGE.equals(trigger.schemaName())) {
      return;
    }
    try {
      answer(trigger);
    } catch (RcrtException e) {
      LOG.warn("agent '{}' could not answer '{}': {}", agent.agentId(), trigger.id(), e.getMessage());
      String session = sessionOf(trigger);
      ObjectNode context =
          responseContext("Sorry, I could not answer: " + e.getMessage(), session, trigger, new Turn());
      context.put("status", "error");
      context.putObject("error").put("code", e.code()).put("message", e.getMessage());
      store.create(response(context, session));
    }
  }

  /** One tool call → the text of the {@code role: tool} message that answers it. */
  private String runCall(ToolCall call, ToolPrompt prompt, String session) {
    Optional<String> tool = prompt.toolFor(call.name());
    if (tool.isEmpty()) {
      return "Error: unknown tool '" + call.name() + "'. Available tools: "
          + String.join(", ", prompt.functionToTool().keySet())
          + ". Call one of these, or answer without a tool.";
    }
    JsonNode input;
    try {
      input = RcrtJson.parse(call.arguments().isBlank() ? "{}" : call.arguments());
    } catch (ValidationException e) {
      return "Error: the arguments for '" + call.name() + "' are " + e.getMessage()
          + ". Call it again with a JSON object that matches its parameters.";
    }
    if (!input.isObject()) {
      return "Error: the arguments for '" + call.name() + "' must be a JSON object, found "
          + input.getNodeType().toString().toLowerCase(java.util.Locale.ROOT) + ".";
    }
    ToolRequest request =
        new ToolRequest(UUID.randomUUID().toString(), tool.get(), input, agent.agentId(), call.id());
    ToolResponse result = ToolResponse.fromBreadcrumb(runner.submit(request, List.of("session:" + session)));
    if (result.success()) {
      return RcrtJson.write(result.output());
    }
    String advice =
        "tool_input_invalid".equals(result.errorCode())
            ? " Fix the arguments and call the tool again."
            : "";
    return "Error: " + result.error() + "." + advice;
  }

  /** The session's earlier user messages and agent answers, oldest first, at most historyLimit. */
  private List<ChatMessage> history(Breadcrumb trigger, String session) {
    List<ChatMessage> newestFirst = new ArrayList<>();
    boolean beforeTrigger = trigger.tagValue("session:").isEmpty();
    for (Breadcrumb b : store.search(Selector.allTags("session:" + session), 200, 0)) {
      if (b.id().equals(trigger.id())) {
        beforeTrigger = true;
        continue;
      }
      if (!beforeTrigger || newestFirst.size() >= historyLimit) {
        continue;
      }
      if (USER_MESSAGE.equals(b.schemaName()) && b.contextText("content") != null) {
        newestFirst.add(ChatMessage.user(b.contextText("content")));
      } else if (AGENT_RESPONSE.equals(b.schemaName()) && b.contextText("message") != null) {
        newestFirst.add(ChatMessage.assistant(b.contextText("message"), List.of()));
      }
    }
    Collections.reverse(newestFirst);
    return newestFirst;
  }

  private static String sessionOf(Breadcrumb trigger) {
    return trigger
        .tagValue("session:")
        .orElseGet(() -> Objects.requireNonNullElse(trigger.contextText("session_id"), trigger.id()));
  }

  private ObjectNode responseContext(String message, String session, Breadcrumb trigger, Turn turn) {
    ObjectNode c = RcrtJson.object();
    c.put("message", message);
    c.put("agent_id", agent.agentId());
    c.put("session_id", session);
    c.put("trigger_id", trigger.id());
    c.put("rounds", turn.rounds);
    c.put("tool_calls", turn.toolCalls);
    if (turn.totalTokens > 0) {
      c.putObject("usage")
          .put("prompt_tokens", turn.promptTokens)
          .put("completion_tokens", turn.completionTokens)
          .put("total_tokens", turn.totalTokens);
    }
    return c;
  }

  private BreadcrumbCreate response(ObjectNode context, String session) {
    return BreadcrumbCreate.builder(AGENT_RESPONSE, "Agent response")
        .context(context)
        .tags("agent:response", "session:" + session)
        .createdBy(agent.agentId())
        .build();
  }

  /** Counters of one turn. */
  private static final class Turn {
    int rounds;
    int toolCalls;
    long promptTokens;
    long completionTokens;
    long totalTokens;

    void add(ChatResponse.@org.jspecify.annotations.Nullable Usage usage) {
      if (usage != null) {
        promptTokens += usage.promptTokens();
        completionTokens += usage.completionTokens();
        totalTokens += usage.totalTokens();
      }
    }
  }

  /** Builder for {@link AgentExecutor}. Not thread-safe. */
  public static final class Builder {
    private final LlmClient llm;
    private final ToolRunner runner;
    private @org.jspecify.annotations.Nullable AgentDefinition agent;
    private int maxRounds = 10;
    private int historyLimit = 20;

    private Builder(LlmClient llm, ToolRunner runner) {
      this.llm = Objects.requireNonNull(llm, "llm");
      this.runner = Objects.requireNonNull(runner, "runner");
    }

    /** The agent to run; required. */
    public Builder agent(AgentDefinition agent) {
      this.agent = Objects.requireNonNull(agent, "agent");
      return this;
    }

    /** How many model calls one turn may make before it stops; default 10, at least 1. */
    public Builder maxRounds(int maxRounds) {
      if (maxRounds < 1) {
        throw new IllegalArgumentException("maxRounds < 1: " + maxRounds);
      }
      this.maxRounds = maxRounds;
      return this;
    }

    /** How many earlier messages of the session are sent; default 20, 0 for none. */
    public Builder historyLimit(int historyLimit) {
      if (historyLimit < 0) {
        throw new IllegalArgumentException("historyLimit < 0: " + historyLimit);
      }
      this.historyLimit = historyLimit;
      return this;
    }

    /** @throws NullPointerException if no agent was set */
    public AgentExecutor build() {
      return new AgentExecutor(this);
    }
  }
}
