package dev.rcrt.cli;

import java.nio.file.Files;
import java.nio.file.Path;
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

  /** Waits up to {@code seconds} for {@code line} in {@code log}; fails, with the log, if {@code p} exits first or it never comes. */
  static void await(Path log, String line, Process p, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (Files.readString(log).contains(line)) {
        return;
      }
      if (!p.isAlive()) {
        throw new AssertionError("exited before '" + line + "': " + Files.readString(log));
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no '" + line + "' within " + seconds + " s: " + Files.readString(log));
  }
}
