package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes writing real log files: each goes on only when the test writes a line to its input. */
class LogWaitsTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);
  @TempDir Path dir;

  /** A shell that writes "started", then "ready" after each line of its input, until its input ends. */
  private static Process writer(Path log) throws Exception {
    return new ProcessBuilder("bash", "-c", "echo started; while read line; do echo ready; done")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void next(Process p) throws Exception {
    OutputStream in = p.getOutputStream();
    in.write("go\n".getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  @Test
  void aWaitEndsWhenTheTextIsWrittenAndCountsItAcrossLogs() throws Exception {
    Path aLog = dir.resolve("a.log");
    Path bLog = dir.resolve("b.log");
    Process a = writer(aLog);
    Process b = writer(bLog);
    try {
      LogWaits.until(aLog, "started", a, WITHIN);
      LogWaits.until(bLog, "started", b, WITHIN);
      assertThat(LogWaits.count(List.of(aLog, bLog), "ready")).isZero();
      next(a);
      next(b);
      next(a);
      LogWaits.until(List.of(aLog, bLog), "ready", 3, List.of(a, b), WITHIN);
      assertThat(LogWaits.count(List.of(aLog, bLog), "ready")).isEqualTo(3);
      assertThat(LogWaits.count(List.of(aLog), "ready")).isEqualTo(2);
    } finally {
      a.destroyForcibly().waitFor();
      b.destroyForcibly().waitFor();
    }
  }

  @Test
  void aWriterThatExitsWithoutTheTextFailsTheWaitWithItsLog() throws Exception {
    Path log = dir.resolve("gone.log");
    Process p = writer(log);
    LogWaits.until(log, "started", p, WITHIN);
    p.getOutputStream().close(); // its input ends: it exits without "ready"
    assertThatThrownBy(() -> LogWaits.until(log, "ready", p, WITHIN))
        .isInstanceOf(AssertionError.class).hasMessageContaining("exited before 'ready'").hasMessageContaining("started");
  }

  @Test
  void aWaitForTextThatNeverComesFailsOnceItsTimeHasPassed() throws Exception {
    Path log = dir.resolve("quiet.log");
    Process p = writer(log);
    try {
      assertThatThrownBy(() -> LogWaits.until(log, "ready", p, Duration.ofMillis(300)))
          .isInstanceOf(AssertionError.class).hasMessageContaining("no 'ready' within PT0.3S");
    } finally {
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void emptyTextIsRefusedRatherThanCountedForEver() {
    assertThatThrownBy(() -> LogWaits.count(List.of(dir.resolve("any.log")), "")).isInstanceOf(IllegalArgumentException.class);
  }
}
