package dev.rcrt.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrincipalTest {
  @Test
  void aKindPrefixWithNoIdIsNeverTheHost() {
    for (String writer : new String[] {"tool:", "agent:"}) {
      Principal p = Principal.ofWriter(writer);
      assertThat(p.isHost()).as(writer).isFalse();
      assertThat(p.kind()).isEqualTo(Principal.Kind.USER);
    }
  }

  @Test
  void stampedWritersReadBackAsTheirKinds() {
    assertThat(Principal.ofWriter("tool:echo")).isEqualTo(Principal.tool("echo"));
    assertThat(Principal.ofWriter("agent:a1")).isEqualTo(Principal.agent("a1"));
    assertThat(Principal.ofWriter(null)).isEqualTo(Principal.host());
    assertThat(Principal.ofWriter("user:7").kind()).isEqualTo(Principal.Kind.USER);
  }

  @Test
  void writersAreReadFailClosedOnlyTheExactHostFormsAreTheHost() {
    assertThat(Principal.ofWriter("host")).isEqualTo(Principal.host());
    assertThat(Principal.ofWriter("")).isEqualTo(Principal.host());
    assertThat(Principal.ofWriter("tools-runner").isHost()).as("the runners' own records").isTrue();
    for (String writer : new String[] {"Tool:forger", "TOOL:x", "Agent:a", " tool:x", "tool:x ", "mallory", "host ", "HOST", "   ",
        "tool:a b", "agent:a\u0000", "user:\n", "system", "Tools-runner", "tools-runner "}) {
      Principal p = Principal.ofWriter(writer);
      assertThat(p.isHost()).as(writer).isFalse();
      assertThat(p.kind()).as(writer).isEqualTo(Principal.Kind.USER);
      assertThat(p.id()).isEqualTo(writer);
    }
  }

  @Test
  void aMalformedWriterIsLoggedOnOneLineEscapedAndCutShort() {
    // whoever writes a shared store chooses the writer text: a forged log line, or a megabyte kept in memory and printed
    String forged = "mallory\n2026-11-27 12:00:00 [main] INFO dev.rcrt.Approvals - payment approved by host" + "x".repeat(1_000_000);
    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    java.io.PrintStream err = System.err;
    System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThat(Principal.ofWriter(forged).isHost()).isFalse();
    } finally {
      System.setErr(err);
    }
    String log = logged.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(log).contains("writer 'mallory\\u000a2026-11-27").doesNotContain("\nINFO").doesNotContain("\n2026-11-27");
    assertThat(log.lines().count()).as("one line").isEqualTo(1);
    assertThat(log.length()).as("cut short, not a megabyte").isLessThan(400);
  }
}
