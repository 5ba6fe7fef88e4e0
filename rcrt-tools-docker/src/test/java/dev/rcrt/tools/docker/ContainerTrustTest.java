package dev.rcrt.tools.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.testing.ToolHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What is refused before Docker is asked anything, so these run without a daemon. */
class ContainerTrustTest {
  private final ToolHarness h = new ToolHarness(b -> b.trustPolicy(ToolTrustPolicy.builder().allowImages("ghcr.io/acme/*").build()));

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void containerImagesOutsideTheHostsAllowListAreRefusedBeforeDockerIsAsked() {
    h.define("tool.v1", "{\"name\":\"miner\",\"implementation\":{\"type\":\"container\",\"image\":\"evil/miner:latest\",\"mode\":\"stdio\"}}");
    ToolResponse r = h.call("miner", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_capability_denied");
    assertThat(r.error()).isEqualTo(
        "tool 'miner' wants to run image 'evil/miner:latest', which the host does not allow; allow it with ToolTrustPolicy.builder().allowImages(\"evil/miner:latest\")");
  }

  @Test
  void aSpecWithoutAnImageOrWithAnotherContainerRuntimeIsNamedByTheRunnersProblems() {
    h.define("tool.v1", "{\"name\":\"no-image\",\"implementation\":{\"type\":\"container\",\"mode\":\"stdio\"}}");
    h.define("tool.v1", "{\"name\":\"podman\",\"implementation\":{\"type\":\"container\",\"image\":\"ghcr.io/acme/x\",\"runtime\":\"podman\"}}");
    assertThat(h.runner.problems(h.runner.discovery().find("no-image").orElseThrow()))
        .containsExactly("tool 'no-image' implementation: type container needs 'image'");
    assertThat(h.runner.problems(h.runner.discovery().find("podman").orElseThrow()))
        .containsExactly("tool 'podman': container runtime 'podman' is not supported; use docker");
    assertThat(h.call("no-image", "{}").errorCode()).isEqualTo("tool_definition_invalid");
  }
}
