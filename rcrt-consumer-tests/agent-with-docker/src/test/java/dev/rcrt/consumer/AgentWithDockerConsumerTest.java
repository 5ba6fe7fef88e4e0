package dev.rcrt.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.cfg.PackageVersion;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A project that depends on {@code rcrt-agent} and {@code rcrt-tools-docker}: the container runtime
 * is found on the classpath, and docker-java's old Jackson does not displace the SDK's.
 */
class AgentWithDockerConsumerTest {
  @Test
  void theSdksJacksonWinsOverDockerJavasAndIsTheOnlyOne() throws IOException {
    List<String> jackson = Arrays.stream(Files.readString(Path.of(System.getProperty("rcrt.runtimeClasspath"))).trim().split(java.io.File.pathSeparator))
        .map(p -> Path.of(p).getFileName().toString())
        .filter(name -> name.startsWith("jackson-databind-") || name.startsWith("jackson-core-"))
        .toList();
    String version = System.getProperty("rcrt.jacksonVersion");
    assertThat(jackson).containsExactlyInAnyOrder("jackson-databind-" + version + ".jar", "jackson-core-" + version + ".jar");
    assertThat(PackageVersion.VERSION.toString()).isEqualTo(version);
  }

  @Test
  void theContainerRuntimeIsFoundAndAppliesTheImagePolicyBeforeAskingDocker() {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    store.create(BreadcrumbCreate.builder("tool.v1", "boxed").context(RcrtJson.parse(
        "{\"name\":\"boxed\",\"implementation\":{\"type\":\"container\",\"image\":\"acme/boxed:1\",\"mode\":\"stdio\"}}")).build());
    try (ToolRunner runner = ToolRunner.builder(store).trustPolicy(ToolTrustPolicy.builder().allowImages("ghcr.io/acme/*").build()).build()) {
      ToolResponse boxed = runner.call(ToolRequest.of("boxed", RcrtJson.object(), "consumer"));
      assertThat(boxed.errorCode()).isEqualTo("tool_capability_denied");
      assertThat(boxed.error()).contains("wants to run image 'acme/boxed:1'");
    }
  }
}
