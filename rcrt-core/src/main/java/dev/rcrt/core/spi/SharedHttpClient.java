package dev.rcrt.core.spi;

import java.net.http.HttpClient;
import java.time.Duration;

/**
 * The one JDK {@link HttpClient} the SDK uses when the host passes none: HTTP tools, JavaScript
 * {@code fetch}, container tools and the OpenAI-compatible model client all share it, so a JVM
 * holds one selector thread and one connection pool however many runners and clients it builds.
 *
 * <p>Connect timeout 10 s; never follows redirects (a redirect would reach an address the trust
 * policy never checked). Created on first use and never closed: its threads are daemons.
 */
public final class SharedHttpClient {
  private SharedHttpClient() {}

  private static final class Holder {
    static final HttpClient CLIENT =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  /** The shared client. */
  public static HttpClient get() {
    return Holder.CLIENT;
  }
}
