package dev.rcrt.tools.internal.trust;

import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolTrustPolicy;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;

/**
 * Checks a URL a tool is about to reach against the trust policy, on the addresses its host name
 * <b>resolves to</b> (so {@code localhost}, {@code 127.1} or a name pointing at 169.254.169.254 are
 * judged as what they are). Every address must be allowed.
 *
 * <p>The HTTP client resolves the name again when it connects; a name whose answer changes in
 * between (DNS rebinding) is not caught here. Hosts that face hostile DNS should also block
 * internal ranges at the network layer.
 *
 * <p>It is the tools' one way out: it also holds the runner's {@link HttpClient}, which never
 * follows redirects (checked by {@code ToolRunner.Builder.httpClient}).
 */
public final class NetworkGuard {
  private final ToolTrustPolicy policy;
  private final HttpClient http;

  public NetworkGuard(ToolTrustPolicy policy, HttpClient http) {
    this.policy = policy;
    this.http = http;
  }

  /** The client to send a checked request with; shared, never closed here. */
  public HttpClient client() {
    return http;
  }

  /**
   * @param what names the tool in messages, e.g. {@code "tool 'weather'"}
   * @throws ToolException {@code tool_capability_denied} naming the address, or {@code tool_failed}
   *     if the name does not resolve
   */
  public void check(String what, URI uri) {
    String host = uri.getHost();
    if (host == null) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, what + ": URL '" + uri + "' has no host");
    }
    int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, what + ": host '" + host + "' does not resolve");
    }
    for (InetAddress address : addresses) {
      Capability.Connect connect = new Capability.Connect(host, address, port);
      if (!policy.allows(connect)) {
        throw new ToolException(
            ToolErrorCode.TOOL_CAPABILITY_DENIED,
            what + " may not connect to " + host + " (" + address.getHostAddress() + "): loopback, link-local,"
                + " private and other internal addresses are refused unless the host allows that network"
                + " (" + policy.howToAllow(connect) + ")");
      }
    }
  }
}
