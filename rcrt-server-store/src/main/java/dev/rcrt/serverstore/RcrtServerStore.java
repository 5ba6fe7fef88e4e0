package dev.rcrt.serverstore;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.StoreErrorCode;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.core.spi.Records;
import dev.rcrt.core.spi.SharedHttpClient;
import dev.rcrt.serverstore.internal.EventStream;
import dev.rcrt.serverstore.internal.RestClient;
import dev.rcrt.serverstore.internal.RestClient.Reply;
import dev.rcrt.serverstore.internal.ServerReads;
import dev.rcrt.serverstore.internal.WireRecords;
import dev.rcrt.serverstore.internal.WireRecords.Stored;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A running RCRT server as the store, over its REST API on the JDK {@link HttpClient}: what one
 * process writes, every other client of the server sees.
 *
 * <p>How RCRT's API is mapped onto {@link BreadcrumbStore}:
 *
 * <ul>
 *   <li><b>Ids</b>: the server assigns UUIDs; an id the caller gives is kept in a reserved tag
 *       ({@code sdk:id:<id>}) and every call resolves it, so {@code get("tool-def-random")} works.
 *       Reserved {@code sdk:} tags are never shown to callers.
 *   <li><b>Writes</b>: {@code POST} answers only {@code {id}} and {@code PATCH} only {@code
 *       {"ok":true}}, so each is followed by a {@code GET /breadcrumbs/{id}/full}. A stale {@code
 *       If-Match} version (412) is a {@link ConflictException} with the version the server holds; an
 *       unknown id (which RCRT answers 500) is a {@link NotFoundException}. An idempotency key is
 *       sent as {@code Idempotency-Key}; the server's 409 for a repeat returns the original record.
 *   <li><b>Writers</b>: the server records the token's agent as {@code created_by}. The SDK's writer
 *       (a tool, an agent) travels as a claim in reserved tags, honoured only on records the
 *       server says this store's own agent wrote; a record another agent of the server wrote reads
 *       as written by {@code user:<agent uuid>}, which the default trust policy does not trust.
 *       Without a token or credentials (a server with {@code AUTH_MODE=disabled}) the server
 *       cannot tell writers apart, so every claim is honoured, as in a store only this host
 *       writes: on a server that several parties can reach, use authentication and require signed
 *       tools ({@code ToolTrustPolicy.Builder.requireSignatures}).
 *   <li><b>Search</b>: the server filters by {@code schema_name} and one {@code tag}; the rest of
 *       the selector (further tags, {@code any_tags}, {@code context_match}) is applied here while
 *       paging through the server's results, so {@code limit} and {@code offset} count matching
 *       records; matches are then read in full. A selective selector over a large store reads many
 *       pages.
 *   <li><b>History</b>: RCRT keeps earlier context versions only; each is returned as the current
 *       record with that version's context, time and checksum.
 *   <li><b>Events</b>: from {@code GET /events/stream} ({@link EventStream}): creates and updates,
 *       once each, in the server's order; <b>no {@code DELETED} events</b>, since RCRT sends none,
 *       and none for what happened while the stream was reconnecting.
 *   <li><b>Expiry</b> is the server's: {@link #purgeExpired()} does nothing and returns 0.
 *   <li><b>Vector search</b> ({@link #vectorSearch()}): {@code GET /breadcrumbs/search?q=&nn=}.
 * </ul>
 *
 * <p>Authentication: a token given ({@link Builder#token}), one fetched from {@code POST
 * /auth/token} ({@link Builder#credentials}) and fetched again when the server answers 401, or none
 * for a server running with {@code AUTH_MODE=disabled}. Tokens never appear in messages.
 *
 * <p>Failures: {@link RcrtServerException} ({@code store_unavailable}, {@code store_unauthorized},
 * {@code store_failed}). Thread-safe. Close it to end the event stream; the HTTP client, when the
 * host gave one, is the host's to close.
 */
public final class RcrtServerStore implements BreadcrumbStore, AutoCloseable {
  private final URI base;
  private final RestClient rest;
  private final WireRecords wire = new WireRecords();
  private final ServerReads reads;
  private final EventStream events;

  private RcrtServerStore(Builder b) {
    this.base = b.base;
    if (b.agentId != null) {
      wire.own(b.agentId);
    }
    if (b.token == null && b.agentId == null) {
      wire.ownEveryone();
    }
    this.rest = new RestClient(b.base, b.http, b.timeout, b.tokens());
    this.reads = new ServerReads(rest, wire);
    this.events = new EventStream(rest, wire, reads::fetch, b.reconnectDelay, b.timeout);
  }

  /**
   * A builder for the server at {@code baseUrl}, such as {@code http://localhost:8081}.
   *
   * @throws IllegalArgumentException if it is not an http or https URL
   */
  public static Builder builder(String baseUrl) {
    return new Builder(baseUrl);
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create) {
    Records.check(create);
    if (create.id() != null) {
      Optional<Stored> existing = reads.resolve(create.id());
      if (existing.isPresent()) {
        throw new ConflictException(create.id(), 0, existing.get().record().version());
      }
    }
    String key = create.idempotencyKey() != null ? create.idempotencyKey() : create.id() != null ? "sdk-id:" + create.id() : null;
    Reply reply = rest.send("POST", "/breadcrumbs", WireRecords.createBody(create), key == null ? Map.of() : Map.of("Idempotency-Key", key));
    if (reply.status() == 409 && create.idempotencyKey() != null) {
      return reads.findByTag(WireRecords.keyTag(create.idempotencyKey()))
          .map(Stored::record)
          .orElseThrow(() -> RestClient.unexpected("POST /breadcrumbs (repeated idempotency key)", reply));
    }
    if (reply.status() == 409 && create.id() != null) {
      throw new ConflictException(create.id(), 0, reads.resolve(create.id()).map(s -> s.record().version()).orElse(1L));
    }
    if (!reply.ok()) {
      throw RestClient.unexpected("POST /breadcrumbs", reply);
    }
    String serverId = reply.json().path("id").asText();
    if (create.id() != null) {
      reads.remember(create.id(), serverId);
    }
    Reply full = rest.send("GET", "/breadcrumbs/" + serverId + "/full", null, Map.of());
    if (full.status() == 404) {
      return WireRecords.unread(serverId, create); // created already expired: the server shows it to no one
    }
    if (!full.ok()) {
      throw RestClient.unexpected("GET /breadcrumbs/" + serverId + "/full", full);
    }
    return wire.read(full.json(), true).record();
  }

  @Override
  public Optional<Breadcrumb> get(String id) {
    return reads.resolve(id).map(Stored::record);
  }

  @Override
  public Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update) {
    Records.check(id, update);
    Stored current = reads.resolve(id).orElseThrow(() -> new NotFoundException("no breadcrumb '" + id + "' on the RCRT server " + base));
    if (current.record().version() != expectedVersion) {
      throw new ConflictException(id, expectedVersion, current.record().version());
    }
    String path = "/breadcrumbs/" + current.serverId();
    Reply reply = rest.send("PATCH", path, WireRecords.patchBody(update, WireRecords.rawTags(current.wire())), Map.of("If-Match", String.valueOf(expectedVersion)));
    if (reply.status() == 412) {
      long actual = reads.fetch(current.serverId()).map(s -> s.record().version()).orElse(expectedVersion + 1);
      throw new ConflictException(id, expectedVersion, actual);
    }
    if (reply.status() == 500 || reply.status() == 404) {
      if (reads.fetch(current.serverId()).isEmpty()) {
        throw new NotFoundException("no breadcrumb '" + id + "' on the RCRT server " + base + " (deleted meanwhile)");
      }
    }
    if (!reply.ok()) {
      throw RestClient.unexpected("PATCH " + path, reply);
    }
    return reads.fetch(current.serverId())
        .map(Stored::record)
        .orElseThrow(() -> new NotFoundException("breadcrumb '" + id + "' was deleted right after its update"));
  }

  @Override
  public boolean delete(String id) {
    Optional<Stored> current = reads.resolve(id);
    if (current.isEmpty()) {
      return false;
    }
    Reply reply = rest.send("DELETE", "/breadcrumbs/" + current.get().serverId(), null, Map.of());
    reads.forget(id);
    if (reply.status() == 404) {
      return false;
    }
    if (!reply.ok()) {
      throw RestClient.unexpected("DELETE /breadcrumbs/" + current.get().serverId(), reply);
    }
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The server filters by schema and the first of {@code all_tags}; the rest of the selector
   * is applied while paging, so {@code limit} and {@code offset} count matching records.
   */
  @Override
  public List<Breadcrumb> search(Selector selector, int limit, int offset) {
    return reads.search(selector, limit, offset);
  }

  @Override
  public List<Breadcrumb> history(String id) {
    Stored current = reads.resolve(id).orElseThrow(() -> new NotFoundException("no breadcrumb '" + id + "' on the RCRT server " + base));
    String path = "/breadcrumbs/" + current.serverId() + "/history";
    Reply reply = rest.send("GET", path, null, Map.of());
    if (reply.status() == 404) {
      throw new NotFoundException("no breadcrumb '" + id + "' on the RCRT server " + base);
    }
    if (!reply.ok()) {
      throw RestClient.unexpected("GET " + path, reply);
    }
    return wire.history(current, reply.json());
  }

  /** Subscribes through the server's event stream; see the class comment for what RCRT sends. */
  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    return events.subscribe(selector, listener);
  }

  /** The server expires records itself: nothing to do here. */
  @Override
  public int purgeExpired() {
    return 0;
  }

  @Override
  public Optional<VectorSearch> vectorSearch() {
    return Optional.of(reads::nearest);
  }

  /** Ends the event stream; subscriptions receive nothing more. Idempotent. */
  @Override
  public void close() {
    events.close();
  }

  @Override
  public String toString() {
    return "RcrtServerStore[" + base + "]";
  }

  /** Builder for {@link RcrtServerStore}. Not thread-safe. */
  public static final class Builder {
    private final URI base;
    private HttpClient http = SharedHttpClient.get();
    private Duration timeout = Duration.ofSeconds(30);
    private Duration reconnectDelay = Duration.ofSeconds(2);
    private @Nullable String token;
    private @Nullable String ownerId;
    private @Nullable String agentId;
    private List<String> roles = List.of("curator", "emitter", "subscriber");

    private Builder(String baseUrl) {
      URI uri = URI.create(Objects.requireNonNull(baseUrl, "baseUrl"));
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new IllegalArgumentException("an RCRT server URL starts with http:// or https://, found '" + baseUrl + "'");
      }
      this.base = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
    }

    /** A bearer token to send as it is; its agent (the JWT's {@code sub}) counts as this store's own. */
    public Builder token(String token) {
      this.token = Objects.requireNonNull(token, "token");
      String sub = JwtSubject.of(token);
      if (sub != null) {
        this.agentId = sub;
      }
      return this;
    }

    /**
     * Fetches tokens from {@code POST /auth/token} as this owner and agent (UUIDs), with {@code
     * roles} (default curator, emitter, subscriber), and again when the server answers 401.
     */
    public Builder credentials(String ownerId, String agentId, List<String> roles) {
      this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
      this.agentId = Objects.requireNonNull(agentId, "agentId");
      this.roles = List.copyOf(roles);
      return this;
    }

    /** The host's HTTP client (proxy, TLS); default the SDK's shared one. It must not follow redirects. */
    public Builder httpClient(HttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
      return this;
    }

    /** The limit of each request, and of opening the event stream; default 30 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** How long to wait before reopening an event stream that ended; default 2 s. */
    public Builder reconnectDelay(Duration delay) {
      this.reconnectDelay = Objects.requireNonNull(delay, "delay");
      return this;
    }

    private @Nullable Supplier<String> tokens() {
      if (token != null) {
        String fixed = token;
        return () -> fixed;
      }
      if (ownerId == null || agentId == null) {
        return null;
      }
      String owner = ownerId;
      String agent = agentId;
      List<String> asked = roles;
      return () -> {
        RestClient plain = new RestClient(base, http, timeout, null);
        com.fasterxml.jackson.databind.node.ObjectNode body = RcrtJson.object().put("owner_id", owner).put("agent_id", agent);
        body.set("roles", RcrtJson.toTree(asked));
        Reply reply = plain.send("POST", "/auth/token", body, Map.of());
        if (!reply.ok() || !reply.json().path("token").isTextual()) {
          throw new RcrtServerException(
              StoreErrorCode.STORE_UNAUTHORIZED.code(), "POST /auth/token: the RCRT server gave no token (HTTP " + reply.status() + ")", false, null);
        }
        return reply.json().get("token").asText();
      };
    }

    /** The store; it connects on first use. */
    public RcrtServerStore build() {
      return new RcrtServerStore(this);
    }
  }
}
