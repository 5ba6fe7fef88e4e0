package dev.rcrt.tools.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Docker daemon for container tests, and the test image {@link #IMAGE}, built without a
 * registry: a busybox root filesystem (from the host's busybox-static) given to {@code docker
 * import}. Its httpd serves {@code /cgi-bin/run}, which answers {@code {"received": <posted JSON>}},
 * and {@code /cgi-bin/text}, which answers plain text.
 *
 * <p>Without a daemon, {@link #require()} skips the calling tests with a message on stderr, except
 * under {@code CI=true}, where it fails them.
 */
public final class TestDocker {
  public static final String IMAGE = "rcrt-test/echo:1";
  /** The command that runs the image's HTTP server on port 8080, as a JSON array. */
  public static final String SERVER = "[\"/bin/httpd\",\"-f\",\"-p\",\"8080\",\"-h\",\"/www\"]";

  private static DockerClient client;

  private TestDocker() {}

  /** The daemon's client, with {@link #IMAGE} built; skips (or, under CI, fails) without a daemon. */
  public static synchronized DockerClient require() throws Exception {
    if (client != null) {
      return client;
    }
    String problem = null;
    DockerClient docker = null;
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
      System.err.println("container tests SKIPPED: " + problem);
      Assumptions.abort("container tests skipped: " + problem);
    }
    importImage(rootfs(busybox));
    client = docker;
    return client;
  }

  /** {@code docker import - IMAGE} with the tar on stdin (docker-java's import upload truncates large bodies). */
  private static void importImage(byte[] tar) throws Exception {
    Process p = new ProcessBuilder("docker", "import", "-", IMAGE).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(tar);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("docker import: " + out).isZero();
  }

  private static byte[] rootfs(Path busybox) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (String dir : new String[] {"bin/", "www/", "www/cgi-bin/", "tmp/"}) {
        TarArchiveEntry e = new TarArchiveEntry(dir);
        e.setMode(040755);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
      }
      file(tar, "bin/busybox", Files.readAllBytes(busybox));
      for (String applet : new String[] {"sh", "httpd", "cat", "echo", "sleep", "head", "printf"}) {
        TarArchiveEntry link = new TarArchiveEntry("bin/" + applet, TarArchiveEntry.LF_SYMLINK);
        link.setLinkName("busybox");
        tar.putArchiveEntry(link);
        tar.closeArchiveEntry();
      }
      file(tar, "www/cgi-bin/run",
          "#!/bin/sh\nbody=$(head -c \"${CONTENT_LENGTH:-0}\")\nprintf 'Content-Type: application/json\\r\\n\\r\\n{\"received\":%s}' \"$body\"\n"
              .getBytes(StandardCharsets.UTF_8));
      file(tar, "www/cgi-bin/text", "#!/bin/sh\nprintf 'Content-Type: text/plain\\r\\n\\r\\nnot json'\n".getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }

  private static void file(TarArchiveOutputStream tar, String name, byte[] content) throws Exception {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(content.length);
    e.setMode(0100755);
    tar.putArchiveEntry(e);
    tar.write(content);
    tar.closeArchiveEntry();
  }
}
