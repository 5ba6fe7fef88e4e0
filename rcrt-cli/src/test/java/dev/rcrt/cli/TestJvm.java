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
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
    command.addAll(collectorFlags(Runtime.version().feature()));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.addAll(args);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * The collector options {@code ./rcrt} gives a JDK of release {@code feature} when the user
   * chooses none ({@code LauncherTest} checks that the two agree).
   */
  static List<String> collectorFlags(int feature) {
    return feature == 21 || feature == 22 ? List.of("-XX:+UseZGC", "-XX:+ZGenerational") : List.of("-XX:+UseZGC");
  }
}
