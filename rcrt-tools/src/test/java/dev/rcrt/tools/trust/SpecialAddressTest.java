package dev.rcrt.tools.trust;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolTrustPolicy;
import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The default policy connects only to globally reachable addresses (IANA special-purpose registries, RFC 6890). */
class SpecialAddressTest {
  private static boolean allowed(String address) throws Exception {
    return ToolTrustPolicy.defaults().allows(new Capability.Connect("h", InetAddress.getByName(address), 80));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "0.1.2.3", "10.0.0.1", "100.64.0.1", "127.0.0.1", "169.254.169.254", "172.16.0.1", "192.0.0.8", "192.0.2.1",
      "192.88.99.1", "192.168.1.1", "198.18.0.1", "198.19.255.254", "198.51.100.7", "203.0.113.9", "224.0.0.1",
      "240.0.0.1", "255.255.255.255",
      "::", "::1", "::ffff:127.0.0.1", "::ffff:198.18.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "100::1", "2001::1",
      "2001:db8::1", "2002:c0a8:101::1", "3fff::1", "5f00::1", "fc00::1", "fd12::1", "fe80::1", "fec0::1", "ff02::1"})
  void specialPurposeAddressesAreRefused(String address) throws Exception {
    assertThat(allowed(address)).as(address).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "198.20.0.1", "192.0.3.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"})
  void globallyReachableAddressesAreAllowed(String address) throws Exception {
    assertThat(allowed(address)).as(address).isTrue();
  }
}
