package dev.rcrt.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who wrote a breadcrumb: the writer recorded in its {@code created_by} / {@code updated_by}
 * fields, read as one of four kinds.
 *
 * <ul>
 *   <li>{@link Kind#HOST}: the application embedding the SDK: records it creates through its own
 *       store calls or loads from files. Any writer text outside the forms below (none, {@code
 *       host}, or an original RCRT server's agent UUID) is the host, because only code holding the
 *       store itself can write one.
 *   <li>{@link Kind#AGENT}, {@code agent:<agent_id>}: an agent executor's writes (responses, event
 *       mode requests).
 *   <li>{@link Kind#TOOL}, {@code tool:<name>}: writes a running tool makes through its {@code
 *       ToolContext} store, JavaScript {@code context.api} or a builtin such as {@code
 *       breadcrumb-create}. This is how whatever a model asks a tool to write is labelled.
 *   <li>{@link Kind#USER}, {@code user} or {@code user:<id>}: messages from a person.
 * </ul>
 *
 * <p>Principals are <b>stamped by the runtime</b> that performs a write, never chosen by the
 * writer: tools only ever see a store view that overwrites the writer fields with {@code
 * tool:<name>}. A policy (the tool runtime's {@code ToolTrustPolicy}) decides what a record may
 * cause from its last writer ({@link #writerOf}).
 *
 * @param kind what sort of writer
 * @param id the agent id, tool name or user id; for the host the writer text as recorded ({@code
 *     host} when none); may be empty only for a user
 */
public record Principal(Kind kind, String id) {

  /** The kinds of writer. */
  public enum Kind {
    /** The application embedding the SDK ({@code host}). */
    HOST,
    /** An agent ({@code agent:<id>}). */
    AGENT,
    /** A tool, writing through its store view ({@code tool:<name>}). */
    TOOL,
    /** A person or an outside writer ({@code user:<id>}). */
    USER
  }

  private static final Principal HOST = new Principal(Kind.HOST, "host");

  /** Validates. */
  public Principal {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    if (id.isEmpty() && kind != Kind.USER) {
      throw new IllegalArgumentException(kind + " principal needs an id");
    }
  }

  /** The host. */
  public static Principal host() {
    return HOST;
  }

  /** The agent with {@code agentId}. */
  public static Principal agent(String agentId) {
    return new Principal(Kind.AGENT, agentId);
  }

  /** The tool named {@code name}. */
  public static Principal tool(String name) {
    return new Principal(Kind.TOOL, name);
  }

  /** An anonymous user. */
  public static Principal user() {
    return new Principal(Kind.USER, "");
  }

  /**
   * Reads a recorded writer: {@code agent:<id>}, {@code tool:<name>}, {@code user}, {@code
   * user:<id>}; anything else, null included, is the host. A kind prefix with nothing after it
   * ({@code tool:}, {@code agent:}) is no principal the SDK stamps, so it reads as the least trusted
   * kind, a {@link Kind#USER} whose id is the whole text: a shared store written by another process
   * can hold such a writer, and it must never pass for the host.
   */
  public static Principal ofWriter(@Nullable String writer) {
    if (writer == null || writer.isBlank()) {
      return HOST;
    }
    if (writer.startsWith("agent:")) {
      return writer.length() > 6 ? agent(writer.substring(6)) : new Principal(Kind.USER, writer);
    }
    if (writer.startsWith("tool:")) {
      return writer.length() > 5 ? tool(writer.substring(5)) : new Principal(Kind.USER, writer);
    }
    if (writer.equals("user")) {
      return user();
    }
    if (writer.startsWith("user:")) {
      return new Principal(Kind.USER, writer.substring(5));
    }
    return writer.equals("host") ? HOST : new Principal(Kind.HOST, writer);
  }

  /** The writer of a record's current version: {@code updated_by}, else {@code created_by}. */
  public static Principal writerOf(Breadcrumb breadcrumb) {
    return ofWriter(breadcrumb.updatedBy() != null ? breadcrumb.updatedBy() : breadcrumb.createdBy());
  }

  /** Whether this is the host. */
  public boolean isHost() {
    return kind == Kind.HOST;
  }

  /** The text to record as {@code created_by} / {@code updated_by}; {@link #ofWriter} reads it back. */
  public String wire() {
    return switch (kind) {
      case HOST -> id;
      case AGENT -> "agent:" + id;
      case TOOL -> "tool:" + id;
      case USER -> id.isEmpty() ? "user" : "user:" + id;
    };
  }

  @Override
  public String toString() {
    return wire();
  }
}
