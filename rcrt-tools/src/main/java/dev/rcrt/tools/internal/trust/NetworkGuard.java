package dev.rcrt.tools.internal.trust;

import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolTrustPolicy;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * Checks a URL a tool is about to reach against the trust policy, on the addresses its host name
 * <b>resolves to</b> (so {@code localhost}, {@code 127.1} or a name pointing at 169.254.169.254 are
 * judged as what they are). Every address must be allowed.
 *
 * <p>The HTTP client resolves the name again when it connects; a name whose answer changes in
 * between (DNS rebinding) is not caught here. Hosts that face hostile DNS should also block
 * internal ranges at the network layer.
 */
public final class NetworkGuard {
  private final ToolTrustPolicy policy;

  public NetworkGuard(ToolTrustPolicy policy) {
    this.policy = policy;
  }

  /**
   * @param what names the tool in messages, e.g. {@code "tool 'weather'"}
   * @throws ToolException {@code tool_capability_denied} naming the address, or {@code tool_failed}
   *     if the name does not resolve
   */
  public void check(String what, URI uri) {
    String host = uri.getHost();
    if (host == null) {
      throw new ToolException("tool_failed", what + ": URL '" + uri + "' has no host");
    }
    int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      throw new ToolException("tool_failed", what + ": host '" + host + "' does not resolve");
    }
    for (InetAddress address : addresses) {
      if (!policy.allows(new Capability.Connect(host, address, port))) {
        throw new ToolException(
            "tool_capability_denied",
            what + " may not connect to " + host + " (" + address.getHostAddress() + "): loopback, link-local,"
                + " private and other internal addresses are refused unless the host allows that network"
                + " (ToolTrustPolicy.builder().allowNetwork(\"" + address.getHostAddress()
                + (address.getAddress().length == 4 ? "/32" : "/128") + "\"))");
      }
    }
  }
}
