package dev.rcrt.tools.internal.trust;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/** The matching rules behind the default trust policy: internal addresses, CIDR blocks, image patterns. */
public final class AddressRules {
  private AddressRules() {}

  /**
   * Whether {@code a} is a public unicast address: not loopback, link-local (169.254/16, fe80::/10,
   * so not cloud metadata endpoints), site-local/private (10/8, 172.16/12, 192.168/16), unique-local
   * (fc00::/7), carrier-grade NAT (100.64/10), multicast or unspecified.
   */
  public static boolean isPublic(InetAddress a) {
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
          return isPublic(InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16)));
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
