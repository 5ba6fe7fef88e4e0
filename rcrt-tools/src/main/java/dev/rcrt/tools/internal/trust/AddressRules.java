package dev.rcrt.tools.internal.trust;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The matching rules behind the default trust policy: internal addresses, CIDR blocks, image patterns. */
public final class AddressRules {
  private AddressRules() {}

  /**
   * The special-purpose blocks of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC
   * 6890 and its updates) that are not globally reachable, plus multicast and the reserved
   * 240.0.0.0/4: loopback, private and unique-local, link-local (so cloud metadata endpoints),
   * carrier-grade NAT, benchmarking (198.18.0.0/15), documentation, protocol assignments, 6to4,
   * Teredo, discard-only, unspecified.
   */
  private static final List<Cidr> SPECIAL = Stream.of(
          "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
          "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
          "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
          "::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16",
          "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8")
      .map(Cidr::parse).toList();

  /**
   * IPv6 addresses whose embedded IPv4 address decides: NAT64's 64:ff9b::/96 (a v4-mapped
   * ::ffff:0:0/96 address is an {@code Inet4Address} already: the JDK converts it).
   */
  private static final List<Cidr> EMBEDDING_V4 = Stream.of("64:ff9b::/96").map(Cidr::parse).toList();

  /**
   * Whether {@code a} is a globally reachable unicast address: in none of the special-purpose blocks
   * above. An IPv4 address embedded in a v4-mapped or NAT64 IPv6 address is judged as itself.
   */
  public static boolean isPublic(InetAddress a) {
    byte[] b = a.getAddress();
    if (a instanceof Inet6Address && EMBEDDING_V4.stream().anyMatch(c -> c.contains(a))) {
      try {
        return isPublic(InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16)));
      } catch (UnknownHostException e) {
        return false;
      }
    }
    return !(a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress() || a.isAnyLocalAddress()
        || a.isMulticastAddress() || SPECIAL.stream().anyMatch(c -> c.contains(a)));
  }

  /** An image pattern where {@code *} matches any run of characters, as a whole-name regex. */
  public static Pattern glob(String pattern) {
    List<String> parts = Arrays.stream(pattern.split("\\*", -1)).map(Pattern::quote).toList();
    return Pattern.compile(String.join(".*", parts));
  }

  /** An address block. */
  public record Cidr(byte[] network, int prefix, String text) {
    /** @throws IllegalArgumentException if {@code cidr} is not an IP address with a prefix length */
    public static Cidr parse(String cidr) {
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

    public boolean contains(InetAddress a) {
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
