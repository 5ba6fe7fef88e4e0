package dev.rcrt.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Separate JVMs on this test's classpath, as a fleet of {@code ./rcrt} processes would be, their output in a log file. */
final class TestJvm {
  private TestJvm() {}

  /** Starts {@code args} (a main class and its arguments) with {@code jvmOptions}, stdout and stderr in {@code log}. */
  static Process start(List<String> jvmOptions, List<String> args, Path log) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.addAll(args);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * Waits up to {@code seconds} for {@code line} in {@code log}, looking again each time the log's
   * folder reports a write (its file-system events, never by sleeping); fails, with the log, if
   * {@code p} exits first or the line never comes.
   */
  static void await(Path log, String line, Process p, int seconds) throws Exception {
    awaitAny(List.of(log), line, 1, List.of(p), seconds);
  }

  /**
   * {@link #await} for several processes to have written {@code line} {@code times} times in all,
   * {@code logs} in one folder, {@code processes} in the same order; fails if all exited first or
   * it does not happen in time.
   */
  static void awaitAny(List<Path> logs, String line, int times, List<Process> processes, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    Path folder = logs.get(0).toAbsolutePath().getParent();
    try (WatchService writes = folder.getFileSystem().newWatchService()) {
      folder.register(writes, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
      while (true) {
        boolean anyAlive = processes.stream().anyMatch(Process::isAlive); // before the logs: a line written just before an exit is seen
        if (count(logs, line) >= times) {
          return;
        }
        if (!anyAlive) {
          throw new AssertionError("exited before '" + line + "': " + read(logs));
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no '" + line + "' (" + times + " in all) within " + seconds + " s: " + read(logs));
        }
        // a write wakes this at once; the cap only bounds how late an exit that wrote nothing more is noticed
        WatchKey key = writes.poll(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
        if (key != null) {
          key.pollEvents();
          key.reset();
        }
      }
    }
  }

  /** How many times {@code line} is in {@code logs} now, all together. */
  static int count(List<Path> logs, String line) throws java.io.IOException {
    int n = 0;
    for (Path log : logs) {
      String text = read(log);
      for (int at = text.indexOf(line); at >= 0; at = text.indexOf(line, at + line.length())) {
        n++;
      }
    }
    return n;
  }

  private static String read(List<Path> logs) throws java.io.IOException {
    StringBuilder all = new StringBuilder();
    for (Path log : logs) {
      all.append(logs.size() > 1 ? "\n--- " + log.getFileName() + ":\n" : "").append(read(log));
    }
    return all.toString();
  }

  private static String read(Path log) throws java.io.IOException {
    // bytes decoded leniently: a character may be half written
    return Files.exists(log) ? new String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.UTF_8) : "(no log)";
  }
}
