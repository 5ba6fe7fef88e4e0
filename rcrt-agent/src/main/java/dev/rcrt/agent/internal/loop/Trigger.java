package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ToolRequest;
import java.util.List;

/**
 * What starts a turn: a {@code user.message.v1}, or RCRT's {@code agent.context.v1}, which a
 * context builder writes for one consumer ({@code {consumer_id, trigger_event_id, breadcrumbs:
 * [{id, schema_name, created_at, content}], token_estimate}}, tagged {@code agent:context}, {@code
 * consumer:<agent_id>} and {@code session:<id>}). The latter answers the user message its {@code
 * trigger_event_id} names, with the assembled breadcrumbs as context.
 *
 * <p>A third kind starts a <b>child run</b>: the {@code tool.request.v1} of a parent run's call to
 * a specialist agent. The specialist answers the request's {@code message} (else its whole input as
 * JSON) in the sub-session {@code <parent session>/<specialist>}, with no session memory (the
 * parent says what it needs); every record of the child run carries {@code parent_run:<parent
 * run>}, so a process that sees one knows which run it moves on.
 *
 * @param question the user message answered; its id is the response's {@code trigger_event_id}
 * @param message what was said, in the trigger's session
 * @param context the context builder's breadcrumbs as a prompt section, or empty
 */
record Trigger(Breadcrumb question, UserMessage message, String context) {
  /** The schema RCRT's context builders write. */
  static final String AGENT_CONTEXT = "agent.context.v1";

  /** The tag on every record of a child run, naming its parent run. */
  static final String PARENT_TAG = "parent_run:";

  /** Whether this starts a child run (a parent's call to a specialist). */
  boolean child() {
    return startsChild(question);
  }

  /** Whether {@code trigger} starts a child run: it is a parent's {@code tool.request.v1}. */
  private static boolean startsChild(Breadcrumb trigger) {
    return ToolRequest.SCHEMA.equals(trigger.schemaName());
  }

  /** The tags every record of the run {@code trigger} starts carries besides its own: {@code parent_run:} for a child run. */
  static List<String> runTags(Breadcrumb trigger) {
    return startsChild(trigger) ? trigger.tagValue("run:").map(parent -> List.of(PARENT_TAG + parent)).orElse(List.of()) : List.of();
  }

  /** The session of the run {@code trigger} starts: a child run's is a sub-session of its parent's. */
  static String sessionOf(Breadcrumb trigger) {
    String session = UserMessage.sessionOf(trigger);
    return startsChild(trigger) ? session + "/" + trigger.contextText("tool") : session;
  }

  /** The id of the user message {@code trigger} asks about: its own, or the one an {@code agent.context.v1} names. */
  static String questionId(Breadcrumb trigger) {
    String named = AGENT_CONTEXT.equals(trigger.schemaName()) ? trigger.contextText("trigger_event_id") : null;
    return named != null ? named : trigger.id();
  }

  /**
   * Reads a trigger.
   *
   * @throws ValidationException for a record that is none of the three, an {@code agent.context.v1} whose
   *     {@code trigger_event_id} names no stored user message, or a user message without content
   */
  static Trigger read(BreadcrumbStore store, Breadcrumb trigger) {
    if (startsChild(trigger)) {
      JsonNode input = ToolRequest.fromBreadcrumb(trigger).input();
      String text = input.path("message").isTextual() ? input.get("message").asText() : RcrtJson.write(input);
      return new Trigger(trigger, new UserMessage(sessionOf(trigger), text), "");
    }
    if (!AGENT_CONTEXT.equals(trigger.schemaName())) {
      return new Trigger(trigger, UserMessage.fromBreadcrumb(trigger), "");
    }
    String id = trigger.contextText("trigger_event_id");
    if (id == null) {
      throw new ValidationException(AGENT_CONTEXT + " '" + trigger.id() + "' context/trigger_event_id: required, found none");
    }
    Breadcrumb question = store.get(id).orElseThrow(() -> new ValidationException(
        AGENT_CONTEXT + " '" + trigger.id() + "' context/trigger_event_id: '" + id + "' is not in the store"));
    UserMessage said = UserMessage.fromBreadcrumb(question);
    String session = trigger.tagValue("session:").orElse(said.sessionId());
    StringBuilder text = new StringBuilder();
    for (JsonNode item : trigger.context().path("breadcrumbs")) {
      if (!id.equals(item.path("id").asText())) {
        text.append("- ").append(item.path("schema_name").asText("breadcrumb")).append(' ').append(item.path("id").asText())
            .append(": ").append(RcrtJson.write(item.path("content"))).append('\n');
      }
    }
    return new Trigger(question, new UserMessage(session, said.content()), text.isEmpty() ? "" : "=== CONTEXT ===\n\n" + text);
  }
}
