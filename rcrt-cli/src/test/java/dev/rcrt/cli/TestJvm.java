package dev.rcrt.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Separate JVMs on this test's classpath, as a fleet of {@code ./rcrt} processes would be, their
 * output in a log file ({@link dev.rcrt.testing.LogWaits} waits for what they write).
 */
final class TestJvm {
  private TestJvm() {}

  /**
   * Starts {@code args} (a main class and its arguments) with {@code jvmOptions}, stdout and stderr
   * in {@code log}, on ZGC as {@code ./rcrt} starts the command line (generational from JDK 23 on,
   * asked for on 21 and 22).
   */
  static Process start(List<String> jvmOptions, List<String> args, Path log) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-XX:+UseZGC"));
    if (Runtime.version().feature() == 21 || Runtime.version().feature() == 22) {
      command.add("-XX:+ZGenerational");
    }
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.addAll(args);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }
}
