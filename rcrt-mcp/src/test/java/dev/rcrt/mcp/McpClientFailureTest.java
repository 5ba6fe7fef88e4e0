package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.mcp.McpClientSession.McpException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A server that fails in a way the client sees at once fails the call at once, not at the 60 s request limit. */
class McpClientFailureTest {
  @Test
  void aServerProcessThatExitsWhileStartingFailsTheConnectionAtOnceWithItsStandardError() {
    McpServerAddress address = McpServerAddress.fromJson(RcrtJson.parse("{\"command\":[\"sh\",\"-c\",\"echo 'cannot find module server.js' >&2; exit 3\"]}"));
    assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
        assertThatThrownBy(() -> McpClientSession.connect(address, Duration.ofSeconds(60), tools -> {}))
            .isInstanceOf(McpException.class)
            .satisfies(e -> assertThat(((McpException) e).code()).isEqualTo("mcp_unavailable"))
            .hasMessageContaining("exited").hasMessageContaining("cannot find module server.js"));
  }
}
