package dev.rcrt.embeddings.minilm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.testing.LogWaits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that uses the model and is stopped at any moment, as a Spring Boot application is by
 * SIGTERM (the JVM's shutdown hooks, ONNX Runtime's among them, run while the model loads or
 * runs), ends by the signal, never by a crash in {@code libonnxruntime.so}: no SIGSEGV, SIGBUS or
 * SIGABRT, no {@code hs_err} file. Before {@link NativeEnvironment} held the environment, 2 of 20
 * such processes stopped as the model loaded crashed (1 of 24 stopped 0 to 1 s after it began to
 * load), so the signal test is the attack as users meet it and the second test proves the cause
 * is gone every time.
 */
class MiniLmShutdownTest {
  @TempDir Path dir;

  @Test
  void aProcessStoppedWhileTheModelLoadsOrRunsEndsByTheSignalNeverByACrash() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    for (int i = 0; i < 12; i++) {
      Path log = dir.resolve("run-" + i + ".log");
      Process p = new ProcessBuilder(java, "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"), "-cp", System.getProperty("java.class.path"),
          EmbedUntilStopped.class.getName()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      try {
        // three in four processes are stopped while the model loads (where the crashes were), the others while it embeds,
        // each at a random moment after the event
        boolean loading = i % 4 != 3;
        String event = loading ? EmbedUntilStopped.LOADING : EmbedUntilStopped.EMBEDDING;
        LogWaits.until(log, event, p, Duration.ofSeconds(120));
        TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(loading ? 600 : 200)); // the moment of the attack, not a wait
        p.destroy(); // SIGTERM
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("process %d ended", i).isTrue();
        assertThat(p.exitValue()).as("process %d, stopped after '%s': %s", i, event, Files.readString(log)).isEqualTo(143);
      } finally {
        p.destroyForcibly();
      }
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString())).as("crash reports").noneMatch(n -> n.startsWith("hs_err"));
    }
  }

  @Test
  void theReleaseOnnxRuntimesShutdownHookMakesLeavesTheEnvironmentStandingForAModelStillLoadingOrRunning() throws Exception {
    // deterministic where the signal test is a matter of luck: the hook's release while the model is in use, then embedding
    // and a session made after it (without the held reference: "Attempt to use DefaultLogger but none has been registered",
    // and an abort as the process exits)
    Path log = dir.resolve("release.log");
    Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"),
        "-cp", System.getProperty("java.class.path"), EmbedAfterRelease.class.getName())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log).lines()).contains("survived");
  }
}
