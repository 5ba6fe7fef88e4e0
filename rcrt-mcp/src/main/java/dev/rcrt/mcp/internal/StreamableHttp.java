package dev.rcrt.mcp.internal;

import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.DaemonThreads;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityException;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityValidator;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * MCP's streamable HTTP transport (2025-11-25) as a servlet: sessions, a server-sent event stream
 * for each request and one listening stream per session, and what the SDK's own servlet transport
 * leaves out, resumable streams. Each stream starts with a priming event (an id, {@code retry} and
 * empty data); its events are kept ({@link SseStream}), so a client whose connection closed comes
 * back with {@code GET} and {@code Last-Event-ID} and gets what it missed, then the rest live. With
 * a hold, the server closes a stream's connection once it has been open that long, each later
 * connection of the stream twice as long as the one before (SSE polling, SEP-1699): a long call
 * then holds no connection for long, and the client polls after {@code retry}.
 *
 * <p>A stream can be resumed only by its own session, for {@link #RESUME_WINDOW} after it ended;
 * what is kept is bounded per stream ({@link SseStream#MAX_KEPT_BYTES}) and across the streams
 * that ended ({@link #MAX_ENDED_BYTES}, the oldest forgotten first). Errors are JSON-RPC error
 * objects (the body filter in front of this servlet cleans every one). Thread-safe.
 */
public final class StreamableHttp extends HttpServlet implements McpStreamableServerTransportProvider {
  private static final long serialVersionUID = 1L;
  /** The path MCP clients post to. */
  public static final String ENDPOINT = "/mcp";
  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttp.class);
  private static final String EVENT_STREAM = "text/event-stream";
  private static final String JSON = "application/json";

  /** How many requests' handlers run at once (Reactor's bound for blocking work, ten a core, and at least 16); the rest wait their turn. */
  static final int HANDLER_THREADS = Math.max(16, 10 * Runtime.getRuntime().availableProcessors());

  /** How many requests may wait for a handler thread before one is refused as busy. */
  static final int HANDLER_QUEUE = 100_000;

  /** How long a session may send nothing before this process lets go of it (the store keeps it): 1 hour. */
  public static final Duration SESSION_IDLE = Duration.ofHours(1);

  /** How long a stream that ended may still be resumed: 5 minutes. */
  public static final Duration RESUME_WINDOW = Duration.ofMinutes(5);

  /** The most message text kept across the streams that ended: 64 MiB. */
  static final long MAX_ENDED_BYTES = 64L * 1024 * 1024;

  /** The most streams kept after they ended: 10,000 (a flood of small requests is bounded by count, not only by text). */
  static final int MAX_ENDED_STREAMS = 10_000;

  /**
   * The most sessions held in memory: 10,000. Beyond it the least recently seen is let go: the store
   * keeps it, and its next request takes it up again (without what it held in memory).
   */
  static final int MAX_SESSIONS = 10_000;

  /** A stream that ended, and when. */
  private record Kept(SseStream stream, Instant at) {}

  private final String endpoint;
  private final transient ServerTransportSecurityValidator security;
  private final transient TimeSource time;
  private final Duration retry;
  private final @Nullable Duration hold;
  private final transient McpJsonMapper json = McpJsonDefaults.getMapper();
  private final transient SecureRandom random = new SecureRandom();
  /** Sessions by the id clients send; a session taken up from the store has another id of its own in the SDK. */
  private final transient Map<String, McpStreamableServerSession> sessions = new ConcurrentHashMap<>();
  /** The client's id of each session taken up from the store, by the SDK's id (which the SDK's per-session notifications name). */
  private final transient Map<String, String> takenUp = new ConcurrentHashMap<>();
  private final transient SessionRecords records;
  /** Where a call's stream is kept as it is sent, so another process of the store resumes it. */
  private final transient StreamRecords streamRecords;
  /** What stops following each stream this process follows from the store for another, by stream id. */
  private final transient Map<String, Runnable> following = new ConcurrentHashMap<>();
  private final transient Map<String, SseStream> streams = new ConcurrentHashMap<>();
  /** What gives a listening stream up once its client stayed away for the window, by stream id. */
  private final transient Map<String, Runnable> abandon = new ConcurrentHashMap<>();
  private final transient ConcurrentLinkedDeque<Kept> ended = new ConcurrentLinkedDeque<>();
  private final transient AtomicLong endedBytes = new AtomicLong();
  private final transient java.util.concurrent.atomic.AtomicInteger endedCount = new java.util.concurrent.atomic.AtomicInteger();
  private final int maxEnded;
  private final int maxSessions;
  private final Duration keepAlive;
  /** Writes the keep-alive comments, which may block on a client that does not read: never on the shared timer's thread. */
  private final transient java.util.concurrent.ExecutorService keeper;
  /**
   * Runs the requests' handlers, off the container's threads (so a connection can end while its
   * call goes on: the SSE polling hold) and off Reactor's workers, which Reactor may interrupt
   * mid-answer (see {@link #syncServer}). Nothing cancels its tasks; {@link #HANDLER_THREADS} at
   * once, the rest queued.
   */
  private final transient java.util.concurrent.ThreadPoolExecutor handlers;
  /** When each session (by the client's id) last sent a request. */
  private final transient Map<String, Instant> lastSeen = new ConcurrentHashMap<>();
  private transient volatile McpStreamableServerSession.@Nullable Factory factory;
  private volatile boolean closing;

  /**
   * @param endpoint the path the servlet answers at, such as {@code /mcp}
   * @param security the {@code Host} and {@code Origin} checks
   * @param time the clock of the hold and of the resume window
   * @param retry the {@code retry} every priming event carries
   * @param hold how long a stream's connection is held before the server closes it; null: until the stream ends
   * @param keepAlive how often an open connection gets an SSE comment, so that proxies keep it and a
   *     client that went away is noticed
   * @param store where sessions are kept, so that any process serving it takes them up
   */
  public StreamableHttp(String endpoint, ServerTransportSecurityValidator security, TimeSource time, Duration retry, @Nullable Duration hold,
      Duration keepAlive, dev.rcrt.core.BreadcrumbStore store) {
    this(endpoint, security, time, retry, hold, keepAlive, store, MAX_ENDED_STREAMS, MAX_SESSIONS, HANDLER_THREADS, HANDLER_QUEUE);
  }

  /**
   * As the public constructor, keeping at most {@code maxEnded} streams that ended and {@code
   * maxSessions} sessions in memory, and running {@code handlerThreads} handlers at once with at most
   * {@code handlerQueue} requests waiting for one.
   */
  StreamableHttp(String endpoint, ServerTransportSecurityValidator security, TimeSource time, Duration retry, @Nullable Duration hold,
      Duration keepAlive, dev.rcrt.core.BreadcrumbStore store, int maxEnded, int maxSessions, int handlerThreads, int handlerQueue) {
    this.maxEnded = maxEnded;
    this.maxSessions = maxSessions;
    this.records = new SessionRecords(store, json, time);
    this.streamRecords = new StreamRecords(store, time);
    this.endpoint = endpoint;
    this.security = security;
    this.time = time;
    this.retry = retry;
    this.hold = hold;
    this.keepAlive = keepAlive;
    this.keeper = java.util.concurrent.Executors.newSingleThreadExecutor(DaemonThreads.factory("rcrt-mcp-keep-alive"));
    this.handlers = new java.util.concurrent.ThreadPoolExecutor(handlerThreads, handlerThreads, 60, java.util.concurrent.TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>(handlerQueue), DaemonThreads.factory("rcrt-mcp-request"));
    handlers.allowCoreThreadTimeOut(true);
    time.schedule(keepAlive, this::keepAliveDue);
  }

  /** How many requests wait for a handler thread now. */
  int waitingForAHandler() {
    return handlers.getQueue().size();
  }

  @Override
  public List<String> protocolVersions() {
    return List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26, ProtocolVersions.MCP_2025_06_18,
        ProtocolVersions.MCP_2025_11_25);
  }

  /**
   * The SDK's sync server over this transport, its handlers run as this transport hands them over:
   * on a thread of its own pool, never on Reactor's {@code boundedElastic} workers. On those, the
   * SDK's default, Reactor races: a handler that fails before the receiving thread has stored its
   * task's future gets that task cancelled with an interrupt while it still runs, in the middle of
   * writing its error answer (seen under load: the container closed the connection mid-answer and
   * the client waited for its timeout).
   */
  public McpServer.SyncSpecification<?> syncServer() {
    return McpServer.sync(this).immediateExecution(true);
  }

  @Override
  public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
    this.factory = sessionFactory;
  }

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (!admitted(request, response)) {
      return;
    }
    String accept = String.valueOf(request.getHeader(HttpHeaders.ACCEPT));
    boolean acceptsBoth = accept.contains(EVENT_STREAM) && accept.contains(JSON);
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(json, new String(request.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException | IllegalArgumentException e) {
      LOG.debug("MCP message refused: {}", e.toString());
      JsonRpcBodyFilter.refuse(response, 400, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: not a JSON-RPC request, notification or response");
      return;
    }
    if (!acceptsBoth) {
      JsonRpcBodyFilter.refuse(response, 400, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: Accept must name both application/json and text/event-stream");
      return;
    }
    if (message instanceof McpSchema.JSONRPCRequest r && McpSchema.METHOD_INITIALIZE.equals(r.method())) {
      initialize(r, response);
      return;
    }
    McpStreamableServerSession session = session(request, response);
    if (session == null) {
      return;
    }
    if (message instanceof McpSchema.JSONRPCResponse answer) {
      session.accept(answer).contextWrite(c -> c.put(McpTransportContext.KEY, McpTransportContext.EMPTY)).block();
      response.setStatus(HttpServletResponse.SC_ACCEPTED);
    } else if (message instanceof McpSchema.JSONRPCNotification note) {
      session.accept(note).contextWrite(c -> c.put(McpTransportContext.KEY, McpTransportContext.EMPTY)).block();
      response.setStatus(HttpServletResponse.SC_ACCEPTED);
    } else if (message instanceof McpSchema.JSONRPCRequest r) {
      SseStream stream = open(request.getHeader(HttpHeaders.MCP_SESSION_ID), false);
      SseStream.Connection connection = connect(request, response, stream);
      stream.attach(connection, 0, n -> held(stream, connection, n));
      try {
        handlers.execute(() -> session.responseStream(r, stream).contextWrite(c -> c.put(McpTransportContext.KEY, McpTransportContext.EMPTY))
            .subscribe(null, e -> { // the handler runs within subscribe, on this pool's thread (syncServer)
              LOG.warn("MCP request '{}' ended without its response: {}", r.method(), e.toString());
              stream.close();
            }));
      } catch (java.util.concurrent.RejectedExecutionException busy) {
        LOG.warn("MCP request '{}' refused: {} requests wait for a handler already", r.method(), handlers.getQueue().size());
        stream.sendMessage(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, r.id(), null, new McpSchema.JSONRPCResponse.JSONRPCError(
            McpSchema.ErrorCodes.INTERNAL_ERROR, "the MCP server is busy (too many requests in progress); try again later", null))).block();
        stream.close();
      }
    }
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (!admitted(request, response)) {
      return;
    }
    if (!String.valueOf(request.getHeader(HttpHeaders.ACCEPT)).contains(EVENT_STREAM)) {
      JsonRpcBodyFilter.refuse(response, 400, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: Accept must name text/event-stream");
      return;
    }
    McpStreamableServerSession session = session(request, response);
    if (session == null) {
      return;
    }
    String clientId = request.getHeader(HttpHeaders.MCP_SESSION_ID);
    String last = request.getHeader(HttpHeaders.LAST_EVENT_ID);
    if (last != null) {
      resume(clientId, last.strip(), request, response);
      return;
    }
    SseStream stream = open(clientId, true);
    McpStreamableServerSession.McpStreamableServerSessionStream listening = session.listeningStream(stream);
    // a listening stream nobody came back for within the window is given up, and the SDK stops sending to it
    abandon.put(stream.id(), () -> {
      if (!stream.attached() && !stream.isComplete()) {
        abandon.remove(stream.id());
        listening.close();
        stream.close();
      }
    });
    SseStream.Connection connection = connect(request, response, stream);
    stream.attach(connection, 0, n -> held(stream, connection, n));
  }

  @Override
  protected void doDelete(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (!admitted(request, response)) {
      return;
    }
    McpStreamableServerSession session = session(request, response);
    if (session == null) {
      return;
    }
    String id = String.valueOf(request.getHeader(HttpHeaders.MCP_SESSION_ID));
    sessions.remove(id);
    lastSeen.remove(id);
    takenUp.remove(session.getId());
    records.delete(id);
    session.delete().contextWrite(c -> c.put(McpTransportContext.KEY, McpTransportContext.EMPTY)).block();
    for (SseStream s : List.copyOf(streams.values())) {
      if (s.sessionId().equals(id)) {
        streams.remove(s.id());
        abandon.remove(s.id());
        stopFollowing(s);
        s.release();
        s.forget();
      }
    }
    response.setStatus(HttpServletResponse.SC_OK);
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    return Mono.fromRunnable(() -> {
      for (McpStreamableServerSession s : List.copyOf(sessions.values())) {
        try {
          s.sendNotification(method, params).block();
        } catch (RuntimeException e) {
          LOG.debug("notification '{}' not sent to session {}: {}", method, s.getId(), e.toString());
        }
      }
    });
  }

  /** Sends to one session (a resource it subscribed to changed); nothing when it is gone. */
  @Override
  public Mono<Void> notifyClient(String sessionId, String method, Object params) {
    McpStreamableServerSession s = sessions.get(takenUp.getOrDefault(sessionId, sessionId));
    return s == null ? Mono.empty() : s.sendNotification(method, params);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(() -> {
      closing = true;
      keeper.shutdownNow();
      handlers.shutdownNow();
      for (McpStreamableServerSession s : List.copyOf(sessions.values())) {
        try {
          s.closeGracefully().block();
        } catch (RuntimeException e) {
          LOG.debug("session {} did not close gracefully: {}", s.getId(), e.toString());
        }
      }
      sessions.clear();
      streams.values().forEach(SseStream::release);
      streams.clear();
      abandon.clear();
      following.values().forEach(Runnable::run);
      following.clear();
    });
  }

  @Override
  public void destroy() {
    closeGracefully().block();
    super.destroy();
  }

  private void initialize(McpSchema.JSONRPCRequest request, HttpServletResponse response) throws IOException {
    McpStreamableServerSession.Factory f = factory;
    if (f == null) {
      JsonRpcBodyFilter.refuse(response, 503, McpSchema.ErrorCodes.INTERNAL_ERROR, "the MCP server is starting; try again");
      return;
    }
    McpSchema.InitializeRequest init = json.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() {});
    McpStreamableServerSession.McpStreamableServerSessionInit started = f.startSession(init);
    sessions.put(started.session().getId(), started.session());
    lastSeen.put(started.session().getId(), time.instant());
    boundSessions();
    records.save(started.session().getId(), init);
    McpSchema.InitializeResult result = started.initResult().block();
    response.setContentType(JSON);
    response.setCharacterEncoding("UTF-8");
    response.setHeader(HttpHeaders.MCP_SESSION_ID, started.session().getId());
    response.setStatus(HttpServletResponse.SC_OK);
    response.getWriter().write(json.writeValueAsString(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), result, null)));
    response.getWriter().flush();
  }

  /**
   * Attaches a connection that came back with {@code lastEventId} to its stream, if that stream is
   * this session's and still kept: by this process, or, for a call's stream another process of the
   * store sends, in the store ({@link StreamRecords}).
   */
  private void resume(String sessionId, String lastEventId, HttpServletRequest request, HttpServletResponse response) throws IOException {
    sweep();
    String id = SseStream.streamOf(lastEventId);
    SseStream stream = id == null ? null : streams.get(id);
    if (stream == null && id != null && id.startsWith("r")) {
      stream = followed(id, sessionId, SseStream.seqOf(id, lastEventId));
    }
    long after = stream == null || !stream.sessionId().equals(sessionId) ? -1 : stream.seqOf(lastEventId);
    if (stream == null || after < 0) {
      JsonRpcBodyFilter.refuse(response, 404, -32001, "Not found: no stream of this session to resume from that Last-Event-ID (streams are kept "
          + RESUME_WINDOW.toMinutes() + " minutes after they end)");
      return;
    }
    SseStream resumed = stream; // final, for the hold set as it attaches
    SseStream.Connection connection = connect(request, response, resumed);
    if (!resumed.attach(connection, after, n -> held(resumed, connection, n))) {
      LOG.debug("stream {}: no resume after event {} (no longer kept)", resumed.id(), after);
      connection.async().complete();
    }
  }

  /**
   * A stream of session {@code sessionId} (the id its client sends): a call's ({@code r…}) is kept
   * in the store as it is sent, a session's listening stream ({@code l…}) in this process only.
   */
  private SseStream open(String sessionId, boolean listening) {
    byte[] bytes = new byte[18];
    random.nextBytes(bytes);
    String id = (listening ? "l" : "r") + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).replace('_', '.');
    SseStream stream = listening ? new SseStream(id, sessionId, json, retry, this::ended)
        : SseStream.kept(id, sessionId, json, retry, this::ended, streamRecords);
    streams.put(id, stream);
    return stream;
  }

  /**
   * Follows, from the store, call stream {@code id} that another process sends (or sent before this
   * one restarted), after event {@code after}; null if the store holds no such event for this
   * session. A follower nobody came back to within the window is let go (a later resume follows
   * the stream again from the store).
   */
  private @Nullable SseStream followed(String id, String sessionId, long after) {
    if (after < 0) {
      return null;
    }
    StreamRecords.Following f = streamRecords.follow(id, sessionId, after, from -> SseStream.follower(id, sessionId, json, retry, this::ended, from))
        .orElse(null);
    if (f == null) {
      return null;
    }
    SseStream raced = streams.putIfAbsent(id, f.stream());
    if (raced != null) { // another connection of the client's came back first
      f.stop().run();
      return raced;
    }
    following.put(id, f.stop());
    if (f.stream().isComplete()) { // it ended while this was set up: its end found nothing to stop
      stopFollowing(f.stream());
    }
    abandon.put(id, () -> {
      if (!f.stream().attached() && !f.stream().isComplete()) {
        abandon.remove(id);
        streams.remove(id, f.stream());
        stopFollowing(f.stream());
      }
    });
    return f.stream();
  }

  private void stopFollowing(SseStream stream) {
    Runnable stop = following.remove(stream.id());
    if (stop != null) {
      stop.run();
    }
  }

  /**
   * Writes an SSE comment to every open connection (a connection that fails is let go, its stream
   * kept for the client's return), and lets go of the sessions idle past {@link #SESSION_IDLE}:
   * they stay in the store, and a request of theirs takes them up again.
   */
  private void keepAliveDue() {
    if (closing) {
      return;
    }
    try {
      keeper.execute(this::keepAlive);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // closing
    }
  }

  private void keepAlive() {
    if (closing) {
      return;
    }
    try {
      streams.values().forEach(SseStream::comment);
      Instant idle = time.instant().minus(SESSION_IDLE);
      lastSeen.forEach((id, at) -> {
        if (at.isBefore(idle)) {
          letGo(id, at);
        }
      });
    } finally {
      time.schedule(keepAlive, this::keepAliveDue);
    }
  }

  /** Lets go of session {@code id} in this process if it was last seen {@code at} (the store keeps it). */
  private void letGo(String id, Instant at) {
    if (lastSeen.remove(id, at)) {
      McpStreamableServerSession gone = sessions.remove(id);
      if (gone != null) {
        takenUp.remove(gone.getId());
        gone.close();
      }
    }
  }

  /** Lets go of the least recently seen sessions while more than {@link #MAX_SESSIONS} are held. */
  private void boundSessions() {
    while (lastSeen.size() > maxSessions) {
      lastSeen.entrySet().stream().min(Map.Entry.comparingByValue()).ifPresent(oldest -> letGo(oldest.getKey(), oldest.getValue()));
    }
  }

  /** How many sessions this process holds in memory. */
  int sessionsHeld() {
    return sessions.size();
  }

  /** A stream that ended stays resumable for the window, within the bounds across streams. */
  private void ended(SseStream stream) {
    stopFollowing(stream);
    ended.addLast(new Kept(stream, time.instant()));
    endedBytes.addAndGet(stream.keptBytes());
    endedCount.incrementAndGet();
    sweep();
  }

  /**
   * Forgets the streams that ended longer than the window ago, and the oldest beyond the bounds
   * (text and count). Run when a stream ends and before a resume: no timer a stream, so a flood
   * of requests leaves nothing queued behind it.
   */
  private void sweep() {
    Instant expired = time.instant().minus(RESUME_WINDOW);
    for (Kept oldest = ended.peekFirst(); oldest != null; oldest = ended.peekFirst()) {
      boolean over = endedCount.get() > maxEnded || endedBytes.get() > MAX_ENDED_BYTES || !oldest.at().isAfter(expired);
      if (!over) {
        return;
      }
      if (ended.removeFirstOccurrence(oldest)) {
        endedCount.decrementAndGet();
        endedBytes.addAndGet(-oldest.stream().keptBytes());
        streams.remove(oldest.stream().id(), oldest.stream());
        abandon.remove(oldest.stream().id());
        oldest.stream().forget();
      }
    }
  }

  /**
   * With a hold, closes {@code connection} once it has been open that long, if the stream is still
   * going: a stream's first connection for the hold, each later one twice as long as the one
   * before, so a long call's client polls less and less often. Set as the connection is attached
   * ({@code n}: its number), before its client can read anything from it.
   */
  private void held(SseStream stream, SseStream.Connection connection, int n) {
    if (hold != null) {
      time.schedule(hold.multipliedBy(1L << Math.min(Math.max(n - 1, 0), 16)), () -> stream.release(connection));
    }
  }

  private SseStream.Connection connect(HttpServletRequest request, HttpServletResponse response, SseStream stream) throws IOException {
    response.setContentType(EVENT_STREAM);
    response.setCharacterEncoding("UTF-8");
    response.setHeader("Cache-Control", "no-cache");
    response.setStatus(HttpServletResponse.SC_OK);
    AsyncContext async = request.startAsync();
    async.setTimeout(0);
    SseStream.Connection connection = new SseStream.Connection(async, response.getWriter());
    async.addListener(new Ended(() -> {
      stream.lost(connection);
      Runnable giveUp = abandon.get(stream.id());
      if (giveUp != null) {
        time.schedule(RESUME_WINDOW, giveUp);
      }
    }));
    return connection;
  }

  /** Whether the request is for this endpoint, the server is open and {@code Host} and {@code Origin} pass; if not, it is answered. */
  private boolean admitted(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (!request.getRequestURI().endsWith(endpoint)) {
      JsonRpcBodyFilter.refuse(response, 404, -32001, "Not found");
      return false;
    }
    if (closing) {
      JsonRpcBodyFilter.refuse(response, 503, McpSchema.ErrorCodes.INTERNAL_ERROR, "the MCP server is shutting down");
      return false;
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : Collections.list(request.getHeaderNames())) {
      headers.put(name, Collections.list(request.getHeaders(name)));
    }
    try {
      security.validateHeaders(headers);
      return true;
    } catch (ServerTransportSecurityException e) {
      JsonRpcBodyFilter.refuse(response, e.getStatusCode(), McpSchema.ErrorCodes.INVALID_REQUEST, JsonRpcBodyFilter.withoutInternals(String.valueOf(e.getMessage()),
          "Forbidden"));
      return false;
    }
  }

  /** The request's session, or null after answering 400 (no session named) or 404 (none such). */
  private @Nullable McpStreamableServerSession session(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String id = request.getHeader(HttpHeaders.MCP_SESSION_ID);
    if (id == null || id.isBlank()) {
      JsonRpcBodyFilter.refuse(response, 400, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: Mcp-Session-Id is required after initialize");
      return null;
    }
    McpStreamableServerSession session = sessions.get(id);
    if (session == null) { // read the store outside the map: a slow store holds up no other session
      McpStreamableServerSession fromStore = takeUp(id);
      if (fromStore != null) {
        session = sessions.putIfAbsent(id, fromStore);
        if (session == null) {
          session = fromStore;
        } else { // another request of the session took it up first
          takenUp.remove(fromStore.getId());
          fromStore.close();
        }
      }
    }
    if (session != null) {
      lastSeen.put(id, time.instant());
      boundSessions();
    }
    if (session == null) {
      JsonRpcBodyFilter.refuse(response, 404, -32001, "Not found: no such session (it ended, or was never opened); start one with initialize");
    }
    return session;
  }

  /** A session another process (or this one before a restart) opened, opened again here from its recorded {@code initialize}; null if none. */
  private @Nullable McpStreamableServerSession takeUp(String id) {
    McpStreamableServerSession.Factory f = factory;
    if (f == null || closing) {
      return null;
    }
    McpSchema.InitializeRequest init = records.find(id).orElse(null);
    if (init == null) {
      return null;
    }
    McpStreamableServerSession.McpStreamableServerSessionInit started = f.startSession(init);
    started.initResult().block();
    takenUp.put(started.session().getId(), id);
    LOG.debug("MCP session taken up from the store");
    return started.session();
  }

  /** Runs {@code then} once a connection is over, however it ended. */
  private record Ended(Runnable then) implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      then.run();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      then.run();
    }

    @Override
    public void onError(AsyncEvent event) {
      then.run();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }

}
