package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.internal.NoExchange;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The way back from a running tool to whoever called it, for the length of one call: it reports
 * progress and log messages, and asks two questions the caller may answer, <b>sampling</b> (a
 * completion from the caller's model) and <b>elicitation</b> (values from the caller's user).
 * MCP's server-to-client messages are the model (specification 2025-11-25: {@code
 * notifications/progress}, {@code notifications/message}, {@code sampling/createMessage}, {@code
 * elicitation/create}); a call from an MCP client carries an exchange that forwards each to that
 * client.
 *
 * <p><b>Tools</b> use it through {@link ToolContext#progress}, {@link ToolContext#log}, {@link
 * ToolContext#sample} and {@link ToolContext#elicit} (JavaScript tools: {@code context.progress},
 * {@code context.log}, {@code context.sample}, {@code context.elicit}, and every {@code console}
 * line is a log message). The runner stands between the tool and the exchange: every text is
 * scrubbed of the call's secret values, a call sends at most 1,000 progress and 1,000 log
 * messages of at most 8 KiB each (the rest are dropped and counted in one last message), asks at
 * most 8 samplings and 8 elicitations, and nothing is sent after the call ended.
 *
 * <p><b>Hosts</b> that call tools give an exchange with {@link ToolCallOptions#withExchange}; a call
 * without one gets {@link #none()}. An implementation is called from the tool's thread and, for
 * JavaScript tools, the runner's; it must be thread-safe, and a blocking {@link #sample} or {@link
 * #elicit} must end by the call's time limit (the tool's thread is interrupted at it).
 */
public interface ToolExchange {

  /**
   * Reports how far the call has come. Values increase from one report to the next; a report that
   * does not increase is not sent.
   *
   * @param progress done so far, in the tool's own unit, at least 0
   * @param total the whole, in the same unit, or null when unknown
   * @param message what is happening, or null
   */
  void progress(double progress, @Nullable Double total, @Nullable String message);

  /**
   * Sends one log message at {@code level}; the caller decides which levels it takes (an MCP client:
   * {@code logging/setLevel}).
   */
  void log(LogLevel level, String message);

  /**
   * Asks the caller's model for a completion, and waits for it.
   *
   * @return the model's answer
   * @throws ToolException {@code tool_unsupported} when the caller offers no sampling (an MCP client
   *     without the {@code sampling} capability, a call that is not from MCP), {@code tool_denied}
   *     when the caller refused, {@code tool_timeout} at the call's time limit
   */
  Sampled sample(Sampling request);

  /**
   * Asks the caller's user for values shaped by a flat JSON Schema object (MCP's restricted
   * elicitation schema: string, number, integer, boolean and enum properties, with defaults), and
   * waits for the answer.
   *
   * <p>A caller that cannot ask now but keeps the question (an agent's run records it as an {@link
   * InputRequest}) throws {@code tool_waiting}: the call then ends without a result, whatever the
   * tool does with the exception, and runs again once the answer is recorded, when its questions
   * are answered in the order it asks them.
   *
   * @return the user's action and, for {@code accept}, the values
   * @throws ToolException {@code tool_unsupported} when the caller offers no elicitation, {@code
   *     tool_timeout} at the call's time limit, {@code tool_waiting} when the question waits for a
   *     person as a record
   */
  Elicited elicit(Elicitation request);

  /**
   * The exchange of a call whose caller takes nothing back: progress is dropped, log messages go
   * to the SLF4J logger {@code dev.rcrt.tools.log} at their level, and {@link #sample} and {@link
   * #elicit} fail {@code tool_unsupported}. Stateless and thread-safe.
   */
  static ToolExchange none() {
    return NoExchange.INSTANCE;
  }

  /** The log levels of MCP's {@code notifications/message} (RFC 5424's severities), least severe first. */
  enum LogLevel {
    DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT, EMERGENCY;

    /** The level as MCP writes it: {@code debug} … {@code emergency}. */
    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The level {@code text} names ({@code debug} … {@code emergency}, any case; {@code warn} and
     * {@code log} as JavaScript's console uses them), or {@link #INFO} for anything else.
     */
    public static LogLevel of(@Nullable String text) {
      String t = text == null ? "" : text.trim().toUpperCase(Locale.ROOT);
      return switch (t) {
        case "WARN" -> WARNING;
        case "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY" -> valueOf(t);
        default -> INFO;
      };
    }
  }

  /**
   * One message of a sampling conversation.
   *
   * @param role {@code user} or {@code assistant}
   * @param text its text
   */
  record SamplingMessage(String role, String text) {
    /** Checks the role and that nothing is null. */
    public SamplingMessage {
      Objects.requireNonNull(text, "text");
      if (!"user".equals(role) && !"assistant".equals(role)) {
        throw new IllegalArgumentException("a sampling message's role is 'user' or 'assistant', not '" + role + "'");
      }
    }
  }

  /**
   * A sampling request, as MCP's {@code sampling/createMessage} takes it (text messages).
   *
   * @param messages the conversation, at least one message; copied
   * @param systemPrompt the system prompt, or null
   * @param maxTokens the most tokens the answer may have, 1 to 100,000
   */
  record Sampling(List<SamplingMessage> messages, @Nullable String systemPrompt, int maxTokens) {
    /** Checks and copies. */
    public Sampling {
      messages = List.copyOf(messages);
      if (messages.isEmpty()) {
        throw new IllegalArgumentException("a sampling request needs at least one message");
      }
      if (maxTokens < 1 || maxTokens > 100_000) {
        throw new IllegalArgumentException("maxTokens is 1 to 100,000, not " + maxTokens);
      }
    }

    /** One user message, no system prompt. */
    public static Sampling of(String prompt, int maxTokens) {
      return new Sampling(List.of(new SamplingMessage("user", prompt)), null, maxTokens);
    }
  }

  /**
   * The model's answer to a {@link Sampling}.
   *
   * @param text the answer's text
   * @param model the model that answered, or null when the caller did not say
   * @param stopReason why it stopped ({@code endTurn}, {@code maxTokens}, …), or null
   */
  record Sampled(String text, @Nullable String model, @Nullable String stopReason) {
    /** Checks that the text is not null. */
    public Sampled {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * An elicitation request, as MCP's {@code elicitation/create} takes it.
   *
   * @param message what the user is asked
   * @param requestedSchema a JSON Schema object with {@code properties} of primitive types
   */
  record Elicitation(String message, JsonNode requestedSchema) {
    /** Checks that the schema is an object schema. */
    public Elicitation {
      Objects.requireNonNull(message, "message");
      if (requestedSchema == null || !requestedSchema.isObject() || !requestedSchema.path("properties").isObject()) {
        throw new IllegalArgumentException("an elicitation's requestedSchema is a JSON Schema object with 'properties'");
      }
    }
  }

  /**
   * The user's answer to an {@link Elicitation}.
   *
   * @param action what the user did
   * @param content the values given, for {@link Action#ACCEPT}; else null
   */
  record Elicited(Action action, @Nullable JsonNode content) {
    /** Checks that the action is not null. */
    public Elicited {
      Objects.requireNonNull(action, "action");
    }

    /** What the user did with an elicitation (MCP's {@code accept}, {@code decline}, {@code cancel}). */
    public enum Action {
      ACCEPT, DECLINE, CANCEL;

      /** The action as MCP writes it. */
      public String wire() {
        return name().toLowerCase(Locale.ROOT);
      }
    }
  }
}
