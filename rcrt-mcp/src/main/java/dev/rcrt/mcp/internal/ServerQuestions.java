package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What an imported MCP server asks its client during a call ({@code sampling/createMessage},
 * {@code elicitation/create}), put to the call that is under way: its {@link ToolContext}, so the
 * runner's bounds apply (secrets scrubbed, at most 8 of each a call, the call's deadline) and the
 * call's own caller answers. In an agent's run that is the run's model where the imported tool's
 * record allows {@code permissions.sampling}, and for elicitation a question recorded as an {@code
 * input.request.v1} that the run waits on (the server is told {@code cancel} meanwhile and the
 * call ends waiting; when it runs again with the answer, the server's question gets it); over
 * {@code mcp serve}, the MCP client that called.
 *
 * <p>The MCP Java SDK does not say which of a session's requests a server's question belongs to,
 * so it goes to the one call in flight on the session; with none, or with several (whose callers
 * could be different people), it is refused with a JSON-RPC error saying so, and nothing is asked.
 * Thread-safe: one per server session, shared by its calls.
 */
public final class ServerQuestions {
  private static final int INVALID_REQUEST = -32600;

  private final String server;
  private final Set<ToolContext> calls = ConcurrentHashMap.newKeySet();

  /** @param server the server's address, as errors name it */
  public ServerQuestions(String server) {
    this.server = server;
  }

  /** Runs {@code call} as the session's call of {@code context}: the server's questions meanwhile go to it. */
  public <T> T during(ToolContext context, Supplier<T> call) {
    calls.add(context);
    try {
      return call.get();
    } finally {
      calls.remove(context);
    }
  }

  /** The server's form elicitation, asked of the call's caller. */
  public McpSchema.ElicitResult elicit(McpSchema.ElicitFormRequest request) {
    ToolContext asker = asker("elicitation");
    JsonNode schema = RcrtJson.toTree(request.requestedSchema() == null ? Map.of("type", "object", "properties", Map.of()) : request.requestedSchema());
    ToolExchange.Elicited said;
    try {
      said = asker.elicit(new ToolExchange.Elicitation(request.message() == null ? "" : request.message(), schema));
    } catch (IllegalArgumentException malformed) {
      throw error("its elicitation is malformed: " + malformed.getMessage());
    } catch (ToolException refused) {
      if (ToolErrorCode.TOOL_WAITING.is(refused.code())) { // kept for a person: the call ends waiting, whatever the server does now
        return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null);
      }
      throw error("its elicitation was not answered: " + refused.getMessage());
    }
    McpSchema.ElicitResult.Action action = McpSchema.ElicitResult.Action.valueOf(said.action().name());
    @SuppressWarnings("unchecked")
    Map<String, Object> content = said.content() == null ? null : RcrtJson.convert(said.content(), Map.class);
    return new McpSchema.ElicitResult(action, action == McpSchema.ElicitResult.Action.ACCEPT ? content : null);
  }

  /** The server's sampling request, asked of the call's caller (text messages only). */
  public McpSchema.CreateMessageResult sample(McpSchema.CreateMessageRequest request) {
    ToolContext asker = asker("sampling");
    List<ToolExchange.SamplingMessage> messages = new ArrayList<>();
    for (McpSchema.SamplingMessage m : request.messages() == null ? List.<McpSchema.SamplingMessage>of() : request.messages()) {
      if (!(m.content() instanceof McpSchema.TextContent text)) {
        throw error("its sampling request holds " + (m.content() == null ? "no" : m.content().type()) + " content; only text is passed on");
      }
      messages.add(new ToolExchange.SamplingMessage(m.role() == McpSchema.Role.ASSISTANT ? "assistant" : "user", text.text()));
    }
    if (messages.isEmpty()) {
      throw error("its sampling request has no messages");
    }
    ToolExchange.Sampled said;
    try {
      said = asker.sample(new ToolExchange.Sampling(messages, request.systemPrompt(), request.maxTokens() == null ? 1_000 : request.maxTokens()));
    } catch (IllegalArgumentException malformed) {
      throw error("its sampling request is malformed: " + malformed.getMessage());
    } catch (ToolException refused) {
      throw error("its sampling request was not answered: " + refused.getMessage());
    }
    McpSchema.CreateMessageResult.StopReason stop = said.stopReason() == null ? McpSchema.CreateMessageResult.StopReason.END_TURN
        : "maxTokens".equals(said.stopReason()) ? McpSchema.CreateMessageResult.StopReason.MAX_TOKENS
            : McpSchema.CreateMessageResult.StopReason.of(said.stopReason());
    return new McpSchema.CreateMessageResult(McpSchema.Role.ASSISTANT, new McpSchema.TextContent(said.text()),
        said.model() == null ? "unknown" : said.model(), stop);
  }

  /** The one call in flight, which the server's question belongs to. */
  private ToolContext asker(String what) {
    List<ToolContext> now = List.copyOf(calls);
    if (now.size() == 1) {
      return now.get(0);
    }
    throw error(now.isEmpty() ? "it asked for " + what + " outside any call, and only a call's caller can answer"
        : "it asked for " + what + " while " + now.size() + " calls were under way, and the MCP client cannot tell which call asks");
  }

  private McpError error(String why) {
    return McpError.builder(INVALID_REQUEST).message("MCP server " + server + ": " + why).build();
  }
}
