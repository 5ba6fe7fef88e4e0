package dev.rcrt.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Records;
import java.util.Objects;

/**
 * What a user said: an RCRT {@code user.message.v1} breadcrumb, {@code context {content,
 * session_id, timestamp}} ({@code timestamp}: ISO-8601, required by RCRT's own schema definition),
 * tagged {@code user:message} and {@code session:<sessionId>}. Writing one triggers
 * the agents subscribed to it ({@link AgentExecutor#start()}).
 *
 * @param sessionId the conversation it belongs to
 * @param content the text
 */
public record UserMessage(String sessionId, String content) {
  /** The schema of user messages. */
  public static final String SCHEMA = "user.message.v1";

  /** Validates required fields. */
  public UserMessage {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(content, "content");
  }

  /** The breadcrumb to write, created by {@code user}, stamped with the wall clock's time now. */
  public BreadcrumbCreate toBreadcrumb() {
    ObjectNode context =
        RcrtJson.object().put("content", content).put("session_id", sessionId).put("timestamp", Records.timestamp());
    return BreadcrumbCreate.builder(SCHEMA, "User message")
        .context(context)
        .tags("user:message", "session:" + sessionId)
        .createdBy("user")
        .build();
  }

  /**
   * Reads a user message. The session is the {@code session:} tag, else {@code
   * context.session_id}, else the breadcrumb's id.
   *
   * @throws ValidationException if {@code b} is not a {@code user.message.v1} with a text {@code
   *     context.content}
   */
  public static UserMessage fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      throw new ValidationException("breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not a " + SCHEMA);
    }
    String content = b.contextText("content");
    if (content == null) {
      throw new ValidationException("user message '" + b.id() + "' context/content: required, found none");
    }
    return new UserMessage(sessionOf(b), content);
  }

  /** The session of a conversation record: its {@code session:} tag, else {@code context.session_id}, else its id. */
  public static String sessionOf(Breadcrumb b) {
    return b.tagValue("session:").orElseGet(() -> Objects.requireNonNullElse(b.contextText("session_id"), b.id()));
  }
}
