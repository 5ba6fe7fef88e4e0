package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.TtlType;
import dev.rcrt.core.Visibility;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP sessions kept in the store, so a session outlives the process that opened it: any process
 * serving the same store takes up a request of a session it has not seen (after a restart, or
 * behind a load balancer) by opening it again from the client's recorded {@code initialize}.
 *
 * <p>One {@code mcp.session.v1} record a session, {@code Private}, written by the host, whose id is
 * derived from a SHA-256 of the session id: the store holds no session id, so a reader of the
 * store (a tool's store view, a search) learns nothing it could send as {@code Mcp-Session-Id}. A
 * record a tool wrote is not taken up. What a session held in memory (its subscriptions, its
 * logging level, its streams' events) stays with the process that held it. Thread-safe.
 */
final class SessionRecords {
  private static final Logger LOG = LoggerFactory.getLogger(SessionRecords.class);
  static final String SCHEMA = "mcp.session.v1";

  /**
   * How long after its {@code initialize} a session may be taken up from the store: 24 hours. The
   * record expires then (the host's {@code purgeExpired()} removes it), so sessions that were never
   * deleted (most clients just go away) do not pile up in the store; the process that holds a
   * session keeps serving it, and elsewhere its client gets 404 and starts a new session, as MCP's
   * lifecycle says.
   */
  static final Duration KEPT = Duration.ofHours(24);

  private final BreadcrumbStore store;
  private final McpJsonMapper json;
  private final TimeSource time;

  SessionRecords(BreadcrumbStore store, McpJsonMapper json, TimeSource time) {
    this.store = store;
    this.json = json;
    this.time = time;
  }

  /** Records a new session's {@code initialize}, kept {@link #KEPT}; a store that fails is logged, and the session lives in this process only. */
  void save(String sessionId, McpSchema.InitializeRequest initialize) {
    try {
      JsonNode params = RcrtJson.parse(json.writeValueAsString(initialize));
      store.create(BreadcrumbCreate.builder(SCHEMA, "MCP session of " + initialize.clientInfo().name()).id(recordId(sessionId))
          .visibility(Visibility.PRIVATE).tags("mcp:session").ttl(time.instant().plus(KEPT), TtlType.DATETIME, null)
          .context(RcrtJson.object().set("initialize", params)).build());
    } catch (ConflictException again) {
      LOG.debug("MCP session already recorded");
    } catch (IOException | RuntimeException e) {
      LOG.warn("MCP session not kept in the store ({}): it ends with this process", e.toString());
    }
  }

  /** The recorded {@code initialize} of session {@code sessionId}, if the host recorded one. */
  Optional<McpSchema.InitializeRequest> find(String sessionId) {
    Optional<Breadcrumb> found = store.get(recordId(sessionId))
        .filter(b -> SCHEMA.equals(b.schemaName()) && Principal.writerOf(b).isHost());
    if (found.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(json.readValue(RcrtJson.write(found.get().context().path("initialize")), McpSchema.InitializeRequest.class));
    } catch (IOException | RuntimeException e) {
      LOG.warn("MCP session record {} does not hold an initialize request ({}); the session is not taken up", found.get().id(), e.toString());
      return Optional.empty();
    }
  }

  /** Forgets session {@code sessionId} in every process (the client deleted it). */
  void delete(String sessionId) {
    try {
      store.delete(recordId(sessionId));
    } catch (RuntimeException e) {
      LOG.warn("MCP session record not deleted ({}): another process may still take the session up", e.toString());
    }
  }

  private static String recordId(String sessionId) {
    return "mcp-session-" + hashOf(sessionId);
  }

  /** What the store holds in place of a session or stream id: the first 32 hex digits of its SHA-256. */
  static String hashOf(String id) {
    return dev.rcrt.core.spi.ContentDigest.sha256Hex(id).substring(0, 32);
  }
}
