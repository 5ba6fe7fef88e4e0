package dev.rcrt.tools.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.ToolHarness;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Container tools against a real Docker daemon and the {@link TestDocker} image. */
class ContainerToolTest {
  static final String IMAGE = TestDocker.IMAGE;
  static final String SERVER = TestDocker.SERVER;
  static DockerClient docker;

  private ToolHarness h;

  @BeforeAll
  static void dockerAndImage() throws Exception {
    docker = TestDocker.require();
  }

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  private ToolHarness harness() {
    h = new ToolHarness();
    return h;
  }

  private static long containersOf(String tool) {
    return docker.listContainersCmd().withShowAll(true).withLabelFilter(Map.of("dev.rcrt.tool", tool)).exec().size();
  }

  private void tool(String name, String implementation, String extra) {
    h.define("tool.v1", "{\"name\":\"" + name + "\",\"implementation\":{\"type\":\"container\",\"image\":\"" + IMAGE + "\",\"runtime\":\"docker\"," + implementation + "}" + extra + "}");
  }

  @Test
  void aServerContainerIsStartedOnceReusedAndRemovedWhenTheRunnerCloses() {
    harness();
    tool("echo-server", "\"port\":8080,\"path\":\"/cgi-bin/run\",\"command\":" + SERVER, "");
    ToolResponse first = h.call("echo-server", "{\"n\":1}");
    ToolResponse second = h.call("echo-server", "{\"n\":2}");

    assertThat(first.error()).isNull();
    assertThat(first.output().at("/received/n").asInt()).isEqualTo(1);
    assertThat(second.output().at("/received/n").asInt()).isEqualTo(2);
    assertThat(containersOf("echo-server")).as("one container, reused").isEqualTo(1);
    var ports = docker.listContainersCmd().withLabelFilter(Map.of("dev.rcrt.tool", "echo-server")).exec().get(0).getPorts();
    assertThat(ports).allSatisfy(p -> assertThat(p.getIp()).isEqualTo("127.0.0.1"));

    h.close();
    h = null;
    assertThat(containersOf("echo-server")).as("removed on close").isZero();
  }

  @Test
  void aServerAnswerThatIsNotJsonIsAnError() {
    harness();
    tool("text-server", "\"port\":8080,\"path\":\"/cgi-bin/text\",\"command\":" + SERVER, "");
    assertThat(h.call("text-server", "{}").error()).contains("answered Content-Type 'text/plain', expected application/json: not json");
  }

  @Test
  void aServerContainerThatExitsIsReportedWithItsExitCode() {
    harness();
    tool("dies", "\"port\":8080,\"command\":[\"/bin/sh\",\"-c\",\"echo cannot start >&2; exit 7\"]", ",\"capabilities\":{\"timeout\":5000}");
    ToolResponse r = h.call("dies", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).contains("container exited with code 7").contains("cannot start");
  }

  @Test
  void aStdioContainerReadsTheInputOnStdinAndWritesTheOutputOnStdout() {
    harness();
    tool("echo-stdio", "\"mode\":\"stdio\",\"command\":[\"/bin/sh\",\"-c\",\"read line; echo \\\"{\\\\\\\"got\\\\\\\":$line}\\\"\"]", "");
    ToolResponse r = h.call("echo-stdio", "{\"x\":[1,2]}");
    assertThat(r.error()).isNull();
    assertThat(r.output().at("/got/x/1").asInt()).isEqualTo(2);
    assertThat(containersOf("echo-stdio")).as("one-shot containers are removed").isZero();
  }

  @Test
  void aStdioProgramThatReadsStdinToTheEndGetsEndOfFile() {
    harness();
    tool("cat", "\"mode\":\"stdio\",\"command\":[\"/bin/cat\"]", ",\"capabilities\":{\"timeout\":10000}");
    ToolResponse r = h.call("cat", "{\"whole\":\"input\"}");
    assertThat(r.error()).isNull();
    assertThat(r.output().get("whole").asText()).isEqualTo("input");
  }

  @Test
  void aStdioContainerExitingNonZeroIsAnErrorCarryingStderr() {
    harness();
    tool("fails", "\"mode\":\"stdio\",\"command\":[\"/bin/sh\",\"-c\",\"echo bad input >&2; exit 3\"]", "");
    ToolResponse r = h.call("fails", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).isEqualTo("tool 'fails' container exited with code 3: bad input");
  }

  @Test
  void aStdioContainerThatHangsIsKilledAtTheTimeout() {
    harness();
    tool("hangs", "\"mode\":\"stdio\",\"command\":[\"/bin/sleep\",\"60\"]", ",\"capabilities\":{\"timeout\":1500}");
    ToolResponse r = h.call("hangs", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).isEqualTo("tool 'hangs' timed out after 1500 ms; its container was killed");
    assertThat(containersOf("hangs")).isZero();
  }

  @Test
  void stdioContainersHaveNoNetworkUnlessTheDefinitionAsks() {
    harness();
    tool("netcheck", "\"mode\":\"stdio\",\"command\":[\"/bin/sh\",\"-c\",\"read l; if [ -e /sys/class/net/eth0 ]; then echo '{\\\"net\\\":true}'; else echo '{\\\"net\\\":false}'; fi\"]", "");
    assertThat(h.call("netcheck", "{}").output().get("net").asBoolean()).isFalse();
  }

  @Test
  void aMissingImageIsAClearError() {
    harness();
    h.define("tool.v1", "{\"name\":\"nowhere\",\"implementation\":{\"type\":\"container\",\"image\":\"rcrt-test/missing:9\",\"port\":80}}");
    ToolResponse r = h.call("nowhere", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_load_failed");
    assertThat(r.error()).isEqualTo("tool 'nowhere': image 'rcrt-test/missing:9' is not available to the Docker daemon; pull or build it first");
  }
}
