package dev.rcrt.tools.internal.trust;

import dev.rcrt.core.Principal;
import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolTrustPolicy;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/** {@link ToolTrustPolicy#defaults()} with the builder's allowances, and the permissive policy. */
public final class DefaultTrustPolicy implements ToolTrustPolicy {
  public static final ToolTrustPolicy PERMISSIVE =
      new ToolTrustPolicy() {
        @Override
        public boolean trusts(Principal writer, String schemaName) {
          return true;
        }

        @Override
        public boolean mayRequest(Principal requester, ToolDefinition tool) {
          return true;
        }

        @Override
        public boolean allows(Capability capability) {
          return true;
        }

        @Override
        public String toString() {
          return "ToolTrustPolicy.permissive()";
        }
      };

  private final Predicate<Principal> trustedWriters;
  private final Predicate<Principal> requesters;
  private final List<Pattern> images;
  private final List<String> moduleLocations;
  private final List<Cidr> networks;

  public DefaultTrustPolicy(
      Predicate<Principal> trustedWriters, Predicate<Principal> requesters, List<String> images,
      List<String> moduleLocations, List<String> networks) {
    this.trustedWriters = trustedWriters;
    this.requesters = requesters;
    this.images = images.stream().map(DefaultTrustPolicy::glob).toList();
    this.moduleLocations = List.copyOf(moduleLocations);
    this.networks = networks.stream().map(Cidr::parse).toList();
  }

  @Override
  public boolean trusts(Principal writer, String schemaName) {
    return trustedWriters.test(writer);
  }

  @Override
  public boolean mayRequest(Principal requester, ToolDefinition tool) {
    return requesters.test(requester);
  }

  @Override
  public boolean allows(Capability capability) {
    if (capability instanceof Capability.ContainerImage c) {
      return images.stream().anyMatch(p -> p.matcher(c.image()).matches());
    }
    if (capability instanceof Capability.ModuleJar m) {
      return moduleAllowed(m.location());
    }
    Capability.Connect connect = (Capability.Connect) capability;
    return isPublic(connect.address()) || networks.stream().anyMatch(n -> n.contains(connect.address()));
  }

  private boolean moduleAllowed(String location) {
    Path path;
    try {
      path = location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    } catch (RuntimeException e) {
      return false; // a remote URL: only a host-listed path prefix can allow a jar
    }
    String normal = path.toAbsolutePath().normalize().toString();
    return moduleLocations.stream()
        .anyMatch(dir -> normal.equals(dir) || normal.startsWith(dir.endsWith("/") ? dir : dir + "/"));
  }

  /**
   * Whether {@code a} is a public unicast address: not loopback, link-local (169.254/16, fe80::/10,
   * so not cloud metadata endpoints), site-local/private (10/8, 172.16/12, 192.168/16), unique-local
   * (fc00::/7), carrier-grade NAT (100.64/10), multicast or unspecified.
   */
  static boolean isPublic(InetAddress a) {
    if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress() || a.isAnyLocalAddress()
        || a.isMulticastAddress()) {
      return false;
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return false; // unique local fc00::/7
      }
      boolean v4Mapped = true;
      for (int i = 0; i < 10; i++) {
        v4Mapped &= b[i] == 0;
      }
      if (v4Mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
        try {
          return isPublic(InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)));
        } catch (UnknownHostException e) {
          return false;
        }
      }
      return true;
    }
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    return first != 0 && !(first == 100 && second >= 64 && second < 128) && first < 224;
  }

  private static Pattern glob(String pattern) {
    List<String> parts = java.util.Arrays.stream(pattern.split("\\*", -1)).map(Pattern::quote).toList();
    return Pattern.compile(String.join(".*", parts));
  }

  /** @throws IllegalArgumentException if {@code cidr} is malformed */
  public static void checkCidr(String cidr) {
    Cidr.parse(cidr);
  }

  @Override
  public String toString() {
    return "ToolTrustPolicy[images=" + images + ", moduleLocations=" + moduleLocations + ", networks=" + networks + "]";
  }

  /** An address block. */
  private record Cidr(byte[] network, int prefix, String text) {
    static Cidr parse(String cidr) {
      int slash = cidr.indexOf('/');
      if (slash < 0) {
        throw new IllegalArgumentException("not CIDR notation (address/prefix): '" + cidr + "'");
      }
      String address = cidr.substring(0, slash);
      if (!address.matches("[0-9a-fA-F:.]+")) {
        throw new IllegalArgumentException("not an IP address in '" + cidr + "' (host names are not accepted)");
      }
      byte[] bytes;
      int prefix;
      try {
        bytes = InetAddress.getByName(address).getAddress();
        prefix = Integer.parseInt(cidr.substring(slash + 1));
      } catch (UnknownHostException | NumberFormatException e) {
        throw new IllegalArgumentException("not CIDR notation (address/prefix): '" + cidr + "'");
      }
      if (prefix < 0 || prefix > bytes.length * 8) {
        throw new IllegalArgumentException("prefix out of range in '" + cidr + "'");
      }
      return new Cidr(bytes, prefix, cidr);
    }

    boolean contains(InetAddress a) {
      byte[] b = a.getAddress();
      if (b.length != network.length) {
        return false;
      }
      for (int bit = 0; bit < prefix; bit++) {
        int mask = 0x80 >> (bit % 8);
        if ((b[bit / 8] & mask) != (network[bit / 8] & mask)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public String toString() {
      return text;
    }
  }
}
