package dev.rcrt.http.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The settings the A2A and AG-UI servers share ({@code A2aServer}, {@code AgUiServer}), checked as they are set, and what follows from them: the {@link RequestGate} and
 * the rule that a server reachable beyond loopback needs a bearer token. Their public builders
 * delegate here, so the two servers take the same settings the same way. Not thread-safe: a
 * builder's.
 */
public final class HttpSettings {
  private String host = "127.0.0.1";
  private int port;
  private @Nullable String bearerToken;
  private @Nullable List<String> allowedHosts;
  private final Set<String> allowedOrigins = new LinkedHashSet<>();
  private int maxRequestBytes = 1024 * 1024;
  private int maxMessageChars = 100_000;
  private Duration maxWait = Duration.ofMinutes(5);
  private Duration requestTimeout = Duration.ofSeconds(30);
  private int maxRequestsPerMinute = 120;

  /** Where to listen: a host address (default {@code 127.0.0.1}) and a port (default 0, any free one). */
  public void http(String host, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 to 65535, found " + port);
    }
    this.host = Objects.requireNonNull(host, "host");
    this.port = port;
  }

  /** The token requests must send as {@code Authorization: Bearer <token>}; a blank one is none. */
  public void bearerToken(@Nullable String token) {
    this.bearerToken = token == null || token.isBlank() ? null : token;
  }

  /** Host names a {@code Host} header may name, lower-cased; default the loopback names on a loopback address, else any. */
  public void allowedHosts(String... names) {
    List<String> list = new ArrayList<>();
    for (String n : names) {
      list.add(n.toLowerCase(Locale.ROOT));
    }
    this.allowedHosts = list;
  }

  /** Origins an {@code Origin} header may name; default none (requests without one pass). */
  public void allowedOrigins(String... origins) {
    allowedOrigins.addAll(List.of(origins));
  }

  /** The largest request body read, in bytes, at least 1,024; default 1 MiB. */
  public void maxRequestBytes(int bytes) {
    if (bytes < 1024) {
      throw new IllegalArgumentException("maxRequestBytes must be at least 1024, found " + bytes);
    }
    this.maxRequestBytes = bytes;
  }

  /** The most characters of text one message may carry; default 100,000. */
  public void maxMessageChars(int chars) {
    if (chars < 1) {
      throw new IllegalArgumentException("maxMessageChars must be positive, found " + chars);
    }
    this.maxMessageChars = chars;
  }

  /** How long a request follows a run before answering with it as it stands; default 5 minutes. */
  public void maxWait(Duration wait) {
    if (wait.isNegative() || wait.isZero()) {
      throw new IllegalArgumentException("maxWait must be positive, found " + wait);
    }
    this.maxWait = wait;
  }

  /**
   * How long a client may take to send a request's body, and leave its connection idle while it
   * sends a request's line and headers or takes in an answer (each event of a stream); default 30 s.
   */
  public void requestTimeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be positive, found " + timeout);
    }
    this.requestTimeout = timeout;
  }

  /** The requests (POSTs) one client address may send a minute, at least 1; default 120. Beyond it: 429 with {@code Retry-After}. */
  public void maxRequestsPerMinute(int requests) {
    if (requests < 1) {
      throw new IllegalArgumentException("maxRequestsPerMinute must be at least 1, found " + requests);
    }
    this.maxRequestsPerMinute = requests;
  }

  /** The per-client request rate these settings make, on {@code time}. */
  public RequestRate rate(dev.rcrt.core.TimeSource time) {
    return new RequestRate(maxRequestsPerMinute, time);
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public @Nullable String bearerToken() {
    return bearerToken;
  }

  public int maxMessageChars() {
    return maxMessageChars;
  }

  public Duration maxWait() {
    return maxWait;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** The gate these settings make: allowed hosts (the loopback names by default on a loopback address), origins, token, body cap. */
  public RequestGate gate() {
    Set<String> hosts = allowedHosts != null ? Set.copyOf(allowedHosts) : loopback(host) ? Set.copyOf(RequestGate.LOOPBACK_NAMES) : Set.of();
    return new RequestGate(hosts, allowedOrigins, bearerToken, maxRequestBytes);
  }

  /**
   * Checks that a server on these settings may start: one reachable from other machines needs a
   * bearer token.
   *
   * @param what the server, for the message, such as {@code "an A2A server"}
   * @throws IllegalArgumentException on a non-loopback address without a bearer token
   */
  public void checkReachable(String what) {
    if (bearerToken == null && !loopback(host)) {
      throw new IllegalArgumentException(what + " on " + host + " is reachable from other machines: give it a bearer token");
    }
  }

  /** Whether {@code host} is an address of the loopback interface (a name that does not resolve is not). */
  public static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
