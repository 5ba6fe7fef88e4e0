package dev.rcrt.cli.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.InputRequest;
import dev.rcrt.tools.ToolExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Optional;

/**
 * Who answers a tool's question in {@code ./rcrt chat}'s own run: the person at the terminal,
 * asked field by field ({@link TerminalElicitation}), whose answer is written as the host's {@code
 * input.response.v1}, as {@code ./rcrt runs answer} writes it; omitted fields take the schema's
 * defaults. Without a terminal on the in-memory store nobody else can ever answer, so the question
 * is answered {@code cancel} at once and the tool decides what that means. Without a terminal on a
 * shared store nothing is written here: the run waits for {@code ./rcrt runs answer}. Used by one
 * chat at a time.
 */
final class ChatQuestions {
  private static final TypeReference<Map<String, Object>> SCHEMA = new TypeReference<>() {};

  private final Cli cli;
  private final Runs runs;
  private final boolean shared;

  ChatQuestions(Cli cli, Runs runs, boolean shared) {
    this.cli = cli;
    this.runs = runs;
    this.shared = shared;
  }

  /**
   * Answers call {@code callId}'s question in run {@code runId} where this process can.
   *
   * @return whether an answer was written
   */
  boolean answer(String runId, String callId) {
    if (shared && !cli.interactive()) {
      return false;
    }
    Optional<Run.PendingCall> call = runs.show(runId).flatMap(r -> r.pending().stream().filter(p -> p.requestId().equals(callId)).findFirst());
    InputRequest question = call.map(Run.PendingCall::question).orElse(null);
    if (question == null) {
      return false; // answered meanwhile
    }
    if (!cli.interactive()) {
      cli.note("nobody can answer '" + question.tool() + "''s question on the in-memory store without a terminal: it is told 'cancel'");
      runs.answer(runId, callId, new ToolExchange.Elicited(ToolExchange.Elicited.Action.CANCEL, null), Principal.host());
      return true;
    }
    TerminalElicitation terminal = new TerminalElicitation(cli.in(), cli.err(), "Tool '" + question.tool() + "'");
    for (int tries = 0; ; tries++) {
      McpSchema.ElicitResult said = terminal.ask(new McpSchema.ElicitFormRequest(question.message(),
          RcrtJson.convert(question.requestedSchema(), SCHEMA), null));
      ToolExchange.Elicited answer = switch (said.action()) {
        case ACCEPT -> new ToolExchange.Elicited(ToolExchange.Elicited.Action.ACCEPT,
            withDefaults(RcrtJson.toTree(said.content() == null ? Map.of() : said.content()), question.requestedSchema()));
        case DECLINE -> new ToolExchange.Elicited(ToolExchange.Elicited.Action.DECLINE, null);
        case CANCEL -> new ToolExchange.Elicited(ToolExchange.Elicited.Action.CANCEL, null);
      };
      try {
        runs.answer(runId, callId, answer, Principal.host());
        return true;
      } catch (ValidationException wrong) {
        cli.note(wrong.getMessage());
        if (tries == 2) {
          runs.answer(runId, callId, new ToolExchange.Elicited(ToolExchange.Elicited.Action.CANCEL, null), Principal.host());
          return true;
        }
      }
    }
  }

  /** {@code content} with each property the schema gives a default for and the person left out. */
  private static JsonNode withDefaults(JsonNode content, JsonNode schema) {
    ObjectNode filled = content.isObject() ? ((ObjectNode) content).deepCopy() : RcrtJson.object();
    schema.path("properties").fields().forEachRemaining(p -> {
      if (!filled.has(p.getKey()) && p.getValue().has("default")) {
        filled.set(p.getKey(), p.getValue().get("default"));
      }
    });
    return filled;
  }
}
