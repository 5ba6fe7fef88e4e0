package dev.rcrt.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Waiting in a test for what other processes write to their log files (a server that says it
 * listens, a runner that reports a step), on the file system's events, never by sleeping: the logs
 * are read again each time their folder reports a write.
 *
 * <p>A wait fails with an {@link AssertionError} that holds the logs, so a test's failure says what
 * the processes wrote. Logs are decoded as UTF-8, leniently: a character may be half written.
 */
public final class LogWaits {
  /**
   * How late, at most, a wait notices that every process exited without writing more: an exit is not
   * a file-system event.
   */
  private static final long EXIT_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private LogWaits() {}

  /**
   * Waits until {@code log} contains {@code text}.
   *
   * @param text not empty
   * @param writer the process writing {@code log}
   * @param within the longest wait, in real time
   * @throws AssertionError with the log, if {@code writer} exits first or {@code within} passes
   * @throws IllegalArgumentException if {@code text} is empty
   * @throws IOException if the log's folder cannot be watched or the log read
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public static void until(Path log, String text, Process writer, Duration within) throws IOException, InterruptedException {
    until(List.of(log), text, 1, List.of(writer), within);
  }

  /**
   * Waits until {@code text} occurs {@code times} times in {@code logs}, all together.
   *
   * @param logs at least one, all in one folder
   * @param text not empty
   * @param writers the processes writing them; the wait fails once none is alive
   * @param within the longest wait, in real time
   * @throws AssertionError with the logs, if every writer exits first or {@code within} passes
   * @throws IllegalArgumentException if {@code text} is empty
   * @throws IOException if the logs' folder cannot be watched or a log read
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public static void until(List<Path> logs, String text, int times, List<Process> writers, Duration within)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    Path folder = Objects.requireNonNull(logs.get(0).toAbsolutePath().getParent(), "a log file's folder");
    try (WatchService writes = folder.getFileSystem().newWatchService()) {
      folder.register(writes, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
      while (true) {
        boolean anyAlive = writers.stream().anyMatch(Process::isAlive); // before the logs: a line written just before an exit is seen
        if (count(logs, text) >= times) {
          return;
        }
        if (!anyAlive) {
          throw new AssertionError("exited before '" + text + "' was written" + (times > 1 ? " " + times + " times" : "") + ": " + read(logs));
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no '" + text + "'" + (times > 1 ? " " + times + " times" : "") + " within " + within + ": " + read(logs));
        }
        WatchKey key = writes.poll(Math.min(left, EXIT_CHECK_NANOS), TimeUnit.NANOSECONDS); // a write wakes this at once
        if (key != null) {
          key.pollEvents();
          key.reset();
        }
      }
    }
  }

  /**
   * How many times {@code text} occurs in {@code logs} now, all together, without overlaps; a log
   * not written yet counts none.
   *
   * @throws IllegalArgumentException if {@code text} is empty
   * @throws IOException if a log cannot be read
   */
  public static int count(List<Path> logs, String text) throws IOException {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("the text to count is empty");
    }
    int n = 0;
    for (Path log : logs) {
      String written = read(log);
      for (int at = written.indexOf(text); at >= 0; at = written.indexOf(text, at + text.length())) {
        n++;
      }
    }
    return n;
  }

  /** What {@code logs} hold now, each under its name when there are several. */
  private static String read(List<Path> logs) throws IOException {
    StringBuilder all = new StringBuilder();
    for (Path log : logs) {
      all.append(logs.size() > 1 ? "\n--- " + log.getFileName() + ":\n" : "").append(read(log));
    }
    return all.toString();
  }

  private static String read(Path log) throws IOException {
    return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
  }
}
