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
}
