package dev.rcrt.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command line as a user without Maven or a shell runs it: {@code java -jar} on the built
 * {@code rcrt-cli.jar} (its manifest names the main class and the jars of {@code lib/} beside it),
 * with a PATH that holds nothing but the JDK.
 */
class CliJarTest {
  private static final Path JAR = Path.of("..", "..", "rcrt-cli", "target", "rcrt-cli.jar").toAbsolutePath().normalize();

  @Test
  void chatRunsWithJavaJarAndNoMavenOnThePath() throws Exception {
    assertThat(JAR).as("rcrt-cli is packaged before this module in the reactor (mvn -B verify from the root)").exists();
    Path javaBin = Path.of(System.getProperty("java.home"), "bin");
    ProcessBuilder pb = new ProcessBuilder(javaBin.resolve("java").toString(), "-jar", JAR.toString(), "chat", "What is 17 * 23?");
    pb.environment().put("PATH", javaBin.toString());
    pb.environment().remove("OPENAI_API_KEY");
    pb.environment().remove("RCRT_STORE");
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();
    assertThat(out).contains("391");
  }
}
