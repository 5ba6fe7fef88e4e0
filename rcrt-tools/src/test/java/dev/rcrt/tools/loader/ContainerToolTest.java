package dev.rcrt.tools.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.rcrt.tools.ToolHarness;
import dev.rcrt.tools.ToolResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Container tools against a real Docker daemon. The test image is built here, without a registry:
 * a busybox root filesystem (from the host's busybox-static) given to {@code docker import}, whose
 * httpd serves a CGI script that echoes the posted JSON. The tools themselves run through the SDK's
 * docker-java client.
 *
 * <p>Without a daemon the tests are skipped with a message, except under {@code CI=true}, where a
 * missing daemon fails the build.
 */
class ContainerToolTest {
  static final String IMAGE = "rcrt-test/echo:1";
  static final String SERVER = "[\"/bin/httpd\",\"-f\",\"-p\",\"8080\",\"-h\",\"/www\"]";
  static DockerClient docker;

  private ToolHarness h;

  @BeforeAll
  static void dockerAndImage() throws Exception {
    String problem = null;
    try {
      var config = DefaultDockerClientConfig.createDefaultConfigBuilder().build();
      docker = DockerClientImpl.getInstance(config,
          new ZerodepDockerHttpClient.Builder().dockerHost(config.getDockerHost()).connectionTimeout(Duration.ofSeconds(3)).build());
      docker.pingCmd().exec();
    } catch (RuntimeException e) {
      problem = "no Docker daemon answers (" + e.getMessage() + ")";
    }
    Path busybox = Path.of("/bin/busybox");
    if (problem == null && !Files.isExecutable(busybox)) {
      problem = "no /bin/busybox to build the test image from (apt-get install busybox-static)";
    }
    if (problem != null) {
      if ("true".equals(System.getenv("CI"))) {
        fail("container tests cannot run under CI: " + problem);
      }
      System.err.println("ContainerToolTest SKIPPED: " + problem);
      Assumptions.abort("container tests skipped: " + problem);
    }
    importImage(rootfs(busybox));
  }

  /** {@code docker import - IMAGE} with the tar on stdin (docker-java's import upload truncates large bodies). */
  static void importImage(byte[] tar) throws Exception {
    Process p = new ProcessBuilder("docker", "import", "-", IMAGE).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(tar);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("docker import: " + out).isZero();
  }

  /** A root filesystem: busybox with its applets, and /www/cgi-bin/run echoing the posted JSON. */
  static byte[] rootfs(Path busybox) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      dir(tar, "bin/");
      dir(tar, "www/");
      dir(tar, "www/cgi-bin/");
      dir(tar, "tmp/");
      file(tar, "bin/busybox", Files.readAllBytes(busybox), 0755);
      for (String applet : new String[] {"sh", "httpd", "cat", "echo", "sleep", "head", "printf"}) {
        TarArchiveEntry link = new TarArchiveEntry("bin/" + applet, TarArchiveEntry.LF_SYMLINK);
        link.setLinkName("busybox");
        tar.putArchiveEntry(link);
        tar.closeArchiveEntry();
      }
      String cgi = "#!/bin/sh\nbody=$(head -c \"${CONTENT_LENGTH:-0}\")\nprintf 'Content-Type: application/json\\r\\n\\r\\n{\"received\":%s}' \"$body\"\n";
      file(tar, "www/cgi-bin/run", cgi.getBytes(StandardCharsets.UTF_8), 0755);
      file(tar, "www/cgi-bin/text", "#!/bin/sh\nprintf 'Content-Type: text/plain\\r\\n\\r\\nnot json'\n".getBytes(StandardCharsets.UTF_8), 0755);
    }
    return bytes.toByteArray();
  }

  private static void dir(TarArchiveOutputStream tar, String name) throws Exception {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setMode(040755);
    tar.putArchiveEntry(e);
    tar.closeArchiveEntry();
  }

  private static void file(TarArchiveOutputStream tar, String name, byte[] content, int mode) throws Exception {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(content.length);
    e.setMode(0100000 | mode);
    tar.putArchiveEntry(e);
    tar.write(content);
    tar.closeArchiveEntry();
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
