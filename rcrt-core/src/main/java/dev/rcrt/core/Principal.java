package dev.rcrt.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who wrote a breadcrumb: the writer recorded in its {@code created_by} / {@code updated_by}
 * fields, read as one of four kinds.
 *
 * <ul>
 *   <li>{@link Kind#HOST}: the application embedding the SDK: records it creates through its own
 *       store calls or loads from files, written with no writer or as {@code host}, and its tool
 *       runners' records ({@code tools-runner}). Only these read as the host: writers are read <b>fail-closed</b>, so any other text (a misspelt kind
 *       such as {@code Tool:x} or {@code TOOL:x}, a padded {@code " tool:x"}, a bare name such as
 *       {@code mallory}, control characters) reads as an unprivileged {@link Kind#USER} and is
 *       logged once at WARN. (An RCRT server's agent UUIDs never reach here as writers: {@code
 *       RcrtServerStore} maps its own writes to the SDK's claim and others' to {@code user:<uuid>}.)
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
   * Reads a recorded writer, fail-closed: {@code null}, empty, exactly {@code host} or exactly
   * {@code tools-runner} (what RCRT's and this SDK's tool runners stamp) is the host;
   * {@code agent:<id>}, {@code tool:<name>}, {@code user} and {@code user:<id>} (lower case, ids
   * without whitespace or control characters) are those principals; anything else is no writer the
   * SDK stamps, so it reads as the least trusted kind, a {@link Kind#USER} whose id is the whole
   * text, and is logged at WARN (once per text, for the first {@value #WARNED} texts): a shared
   * store written by another process can hold such a writer, and it must never pass for the host.
   */
  public static Principal ofWriter(@Nullable String writer) {
    if (writer == null || writer.isEmpty() || writer.equals("host")) {
      return HOST;
    }
    if (writer.equals(RUNNER)) {
      return new Principal(Kind.HOST, RUNNER);
    }
    if (writer.equals("user")) {
      return user();
    }
    int colon = writer.indexOf(':');
    String id = colon < 0 ? "" : writer.substring(colon + 1);
    if (colon > 0 && !id.isEmpty() && id.codePoints().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
      switch (writer.substring(0, colon)) {
        case "agent":
          return agent(id);
        case "tool":
          return tool(id);
        case "user":
          return new Principal(Kind.USER, id);
        default:
          break;
      }
    }
    String shown = dev.rcrt.core.spi.Excerpts.escaped(writer, SHOWN); // whoever writes the store chose it: no forged line, no megabyte kept
    if (MALFORMED.size() < WARNED && MALFORMED.add(shown)) {
      LOG.warn("writer '{}' is none the SDK stamps (host, agent:ID, tool:NAME, user:ID); read as an unprivileged user", shown);
    }
    return new Principal(Kind.USER, writer);
  }

  /** The writer RCRT's tool runners stamp on their responses and approval requests: the host's own runner. */
  private static final String RUNNER = "tools-runner";

  /** How much of a malformed writer text is logged and remembered: 80 characters. */
  private static final int SHOWN = 80;

  /** How many distinct malformed writer texts are logged. */
  private static final int WARNED = 100;

  private static final java.util.Set<String> MALFORMED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Principal.class);

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
