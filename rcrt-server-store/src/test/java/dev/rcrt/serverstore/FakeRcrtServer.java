package dev.rcrt.serverstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.testing.MonitorWaits;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a running RCRT server, written from its REST API's shapes, over an in-memory store
 * on the test's clock. What the SDK must cope with is reproduced: server-assigned UUIDs and a
 * {@code POST} that answers only {@code {id}}; {@code Idempotency-Key} duplicates answered 409; the
 * writer taken from the token, never the payload; {@code /full} with capitalised enums, explicit
 * nulls and {@code owner_id}; {@code PATCH} with {@code If-Match} (412 {@code version_mismatch}, an
 * unknown id 500, {@code {"ok":true}}); history of earlier context versions only; a list that takes
 * one {@code tag}; plain-text errors; and an SSE stream of {@code data:} lines with a ping every
 * {@code pingMillis}, every event sent twice, creates and updates alike as {@code
 * breadcrumb.updated}, and no delete events.
 */
public final class FakeRcrtServer implements AutoCloseable {
  static {
    // the JDK server waits for Nagle's algorithm otherwise: ~40 ms a small response
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  /** The writer of records when authentication is disabled. */
  public static final String ANONYMOUS_AGENT = "00000000-0000-0000-0000-0000000000aa";

  private final InMemoryBreadcrumbStore store;
  private final HttpServer http;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fake-rcrt");
    t.setDaemon(true);
    return t;
  });
  private final ScheduledExecutorService pinger = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "fake-rcrt-ping");
    t.setDaemon(true);
    return t;
  });
  private final boolean authRequired;
  private final Map<String, String> tokens = new ConcurrentHashMap<>();
  private final Set<String> idempotencyKeys = ConcurrentHashMap.newKeySet();
  private final List<OutputStream> streams = new CopyOnWriteArrayList<>();
  private final Subscription events;
  /** Requests served, by method and path template, for tests that check what the client asked. */
  public final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  /**
   * Starts on a free loopback port.
   *
   * @param authRequired RCRT's {@code AUTH_MODE}: true requires a token from {@code /auth/token}
   */
  public FakeRcrtServer(Clock clock, boolean authRequired, long pingMillis) throws IOException {
    this.authRequired = authRequired;
    this.store = InMemoryBreadcrumbStore.builder().clock(clock).eventExecutor(Runnable::run).ids(() -> UUID.randomUUID().toString()).build();
    this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.setExecutor(pool);
    http.createContext("/", this::serve);
    http.start();
    this.events = store.subscribe(Selector.all(), this::broadcast);
    pinger.scheduleAtFixedRate(() -> send("{\"type\":\"ping\"}"), pingMillis, pingMillis, TimeUnit.MILLISECONDS);
  }

  /** The base URL, such as {@code http://127.0.0.1:40123}. */
  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
  }

  /** Ends every open event stream, as a server restart or a proxy timeout would. */
  public synchronized void dropStreams() {
    for (OutputStream out : streams) {
      try {
        out.close();
      } catch (IOException e) {
        // already gone
      }
    }
    streams.clear();
    notifyAll();
  }

  /** Forgets every token it issued, as a server whose tokens expired: the next request gets 401. */
  public void expireTokens() {
    tokens.clear();
  }

  /**
   * Waits until at least {@code count} event streams are open, woken by each stream that opens, for
   * at most {@code within}; whether they are.
   */
  public boolean awaitOpenStreams(int count, Duration within) throws InterruptedException {
    return MonitorWaits.until(this, () -> streams.size() >= count, within);
  }

  private void serve(HttpExchange ex) throws IOException {
    try {
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      if (method.equals("POST") && path.equals("/auth/token")) {
        count("POST /auth/token");
        JsonNode body = RcrtJson.parse(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String token = jwt(body.path("agent_id").asText(UUID.randomUUID().toString()));
        tokens.put(token, body.path("agent_id").asText());
        json(ex, 200, RcrtJson.object().put("token", token));
        return;
      }
      String agent = ANONYMOUS_AGENT;
      if (authRequired) {
        String header = ex.getRequestHeaders().getFirst("Authorization");
        agent = header != null && header.startsWith("Bearer ") ? tokens.get(header.substring(7)) : null;
        if (agent == null) {
          text(ex, 401, "Unauthorized: missing or invalid bearer token");
          return;
        }
      }
      route(ex, method, path, agent);
    } catch (RuntimeException e) {
      text(ex, 500, "Internal Server Error: " + e.getMessage());
    } finally {
      ex.close();
    }
  }

  private void route(HttpExchange ex, String method, String path, String agent) throws IOException {
    String[] parts = path.split("/");
    Map<String, String> query = query(ex.getRequestURI());
    if (path.equals("/events/stream") && method.equals("GET")) {
      count("GET /events/stream");
      stream(ex);
    } else if (path.equals("/breadcrumbs") && method.equals("POST")) {
      count("POST /breadcrumbs");
      create(ex, agent);
    } else if (path.equals("/breadcrumbs") && method.equals("GET")) {
      count("GET /breadcrumbs");
      Selector selector = query.containsKey("schema_name") ? Selector.schema(query.get("schema_name")) : Selector.all();
      if (query.containsKey("tag")) {
        selector = selector.withAllTags(query.get("tag"));
      }
      int limit = Integer.parseInt(query.getOrDefault("limit", "100"));
      int offset = Integer.parseInt(query.getOrDefault("offset", "0"));
      boolean withContext = Boolean.parseBoolean(query.getOrDefault("include_context", "false"));
      ArrayNode out = RcrtJson.array();
      store.search(selector, Math.min(limit, 1000), offset).forEach(b -> out.add(listItem(b, withContext)));
      json(ex, 200, out);
    } else if (path.equals("/breadcrumbs/search") && method.equals("GET")) {
      count("GET /breadcrumbs/search");
      json(ex, 200, nearest(query.getOrDefault("q", ""), Integer.parseInt(query.getOrDefault("nn", "5"))));
    } else if (parts.length >= 3 && parts[1].equals("breadcrumbs")) {
      String id = parts[2];
      String tail = parts.length > 3 ? parts[3] : "";
      count(method + " /breadcrumbs/{id}" + (tail.isEmpty() ? "" : "/" + tail));
      one(ex, method, id, tail, agent);
    } else {
      text(ex, 404, "Not Found");
    }
  }

  private void one(HttpExchange ex, String method, String id, String tail, String agent) throws IOException {
    Breadcrumb b = store.get(id).orElse(null);
    switch (method + " " + tail) {
      case "GET full" -> {
        if (b == null) {
          text(ex, 404, "breadcrumb not found");
        } else {
          json(ex, 200, full(b));
        }
      }
      case "GET " -> {
        if (b == null) {
          text(ex, 404, "breadcrumb not found");
        } else {
          json(ex, 200, listItem(b, true));
        }
      }
      case "GET history" -> {
        if (b == null) {
          text(ex, 404, "breadcrumb not found");
          return;
        }
        ArrayNode out = RcrtJson.array();
        for (Breadcrumb v : store.history(id)) {
          if (v.version() < b.version()) {
            ObjectNode item = out.addObject().put("version", v.version());
            item.set("context", v.context());
            item.put("updated_at", v.updatedAt().toString()).put("updated_by", v.updatedBy() != null ? v.updatedBy() : v.createdBy());
          }
        }
        json(ex, 200, out);
      }
      case "PATCH " -> {
        if (b == null) {
          text(ex, 500, "Internal Server Error"); // RCRT answers an unknown id so
          return;
        }
        String ifMatch = ex.getRequestHeaders().getFirst("If-Match");
        long expected = ifMatch == null ? b.version() : Long.parseLong(ifMatch.replace("\"", ""));
        BreadcrumbUpdate update =
            RcrtJson.convert(RcrtJson.parse(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)), BreadcrumbUpdate.class);
        try {
          store.update(id, expected, update.withUpdatedBy(agent));
          json(ex, 200, RcrtJson.object().put("ok", true));
        } catch (ConflictException e) {
          text(ex, 412, "version_mismatch");
        }
      }
      case "DELETE " -> {
        if (store.delete(id)) {
          json(ex, 200, RcrtJson.object().put("ok", true));
        } else {
          text(ex, 404, "breadcrumb not found");
        }
      }
      default -> text(ex, 405, "Method Not Allowed");
    }
  }

  private void create(HttpExchange ex, String agent) throws IOException {
    String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
    if (key != null && !idempotencyKeys.add(key)) {
      text(ex, 409, "duplicate request: Idempotency-Key already used");
      return;
    }
    ObjectNode body = (ObjectNode) RcrtJson.parse(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    body.remove(List.of("id", "created_by", "idempotency_key")); // the server assigns these
    for (String field : List.of("visibility", "sensitivity")) {
      if (body.path(field).isTextual() && !List.of("public", "team", "private", "low", "pii", "secret").contains(body.get(field).asText().toLowerCase(Locale.ROOT))) {
        body.remove(field); // RCRT falls back to the default
      }
    }
    body.put("created_by", agent);
    Breadcrumb b = store.create(RcrtJson.convert(body, BreadcrumbCreate.class));
    json(ex, 201, RcrtJson.object().put("id", b.id()));
  }

  /** RCRT's raw view: every field, nulls written out, enums capitalised, and the owner. */
  private static ObjectNode full(Breadcrumb b) {
    ObjectNode out = RcrtJson.toTree(b);
    for (String field : List.of("description", "semantic_version", "llm_hints", "ttl", "ttl_type", "ttl_config", "updated_by", "schema_name")) {
      if (!out.has(field)) {
        out.putNull(field);
      }
    }
    out.put("owner_id", "00000000-0000-0000-0000-000000000001");
    return out;
  }

  /** RCRT's list item: no writer, no visibility, no timestamps but {@code updated_at}. */
  private static ObjectNode listItem(Breadcrumb b, boolean withContext) {
    ObjectNode item = RcrtJson.object().put("id", b.id()).put("title", b.title());
    item.set("tags", RcrtJson.toTree(b.tags()));
    item.put("version", b.version()).put("updated_at", b.updatedAt().toString()).put("schema_name", b.schemaName());
    if (withContext) {
      item.set("context", b.context());
    }
    return item;
  }

  /** A stand-in for embeddings: records ranked by the query words their title and context share. */
  private ArrayNode nearest(String q, int nn) {
    List<String> words = List.of(q.toLowerCase(Locale.ROOT).split("\\W+"));
    List<Breadcrumb> all = new ArrayList<>(store.search(Selector.all(), 10_000, 0));
    Map<String, Long> score = new HashMap<>();
    for (Breadcrumb b : all) {
      String text = (b.title() + " " + RcrtJson.write(b.context())).toLowerCase(Locale.ROOT);
      score.put(b.id(), words.stream().filter(w -> !w.isBlank() && text.contains(w)).count());
    }
    all.removeIf(b -> score.get(b.id()) == 0);
    all.sort((a, b) -> Long.compare(score.get(b.id()), score.get(a.id())));
    ArrayNode out = RcrtJson.array();
    all.stream().limit(nn).forEach(b -> out.add(listItem(b, true)));
    return out;
  }

  private void broadcast(BreadcrumbEvent event) {
    if (event.type() == BreadcrumbEvent.Type.DELETED) {
      return; // RCRT sends no delete events
    }
    Breadcrumb b = event.breadcrumb();
    ObjectNode data = RcrtJson.object().put("type", "breadcrumb.updated").put("breadcrumb_id", b.id()).put("version", b.version());
    data.set("tags", RcrtJson.toTree(b.tags()));
    data.put("schema_name", b.schemaName()).put("updated_at", b.updatedAt().toString());
    data.set("context", b.context());
    String line = RcrtJson.write(data);
    send(line);
    send(line); // RCRT may deliver an event twice
  }

  private synchronized void send(String data) {
    for (OutputStream out : streams) {
      try {
        out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (IOException e) {
        streams.remove(out);
        notifyAll();
      }
    }
  }

  private void stream(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream");
    OutputStream out = ex.getResponseBody();
    synchronized (this) { // as RCRT does: a client that saw the headers misses no event sent after them
      ex.sendResponseHeaders(200, 0);
      streams.add(out);
      notifyAll();
      while (streams.contains(out)) { // the exchange stays open until the stream is dropped or fails
        try {
          wait();
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void count(String call) {
    calls.computeIfAbsent(call, c -> new AtomicInteger()).incrementAndGet();
  }

  private static String jwt(String agent) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String header = b64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
    String payload = b64.encodeToString(("{\"sub\":\"" + agent + "\",\"jti\":\"" + UUID.randomUUID() + "\"}").getBytes(StandardCharsets.UTF_8));
    return header + "." + payload + ".c2lnbmF0dXJl";
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new HashMap<>();
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.putIfAbsent(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  private static void json(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] bytes = RcrtJson.write(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  private static void text(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    events.close();
    dropStreams();
    pinger.shutdownNow();
    http.stop(0);
    pool.shutdownNow();
  }
}
