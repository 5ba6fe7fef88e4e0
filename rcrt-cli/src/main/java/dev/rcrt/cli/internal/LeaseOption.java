package dev.rcrt.cli.internal;

import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The {@code --lease} option of the commands that claim work on a shared store ({@code runner}, {@code a2a serve}). */
public final class LeaseOption {
  @Option(names = "--lease", paramLabel = "MS", defaultValue = "15000",
      description = "How long a claim on a tool request or a run lasts unrenewed, in milliseconds: another process takes over"
          + " a dead one's work after this (default: ${DEFAULT-VALUE}).")
  long leaseMillis = 15000;

  /**
   * The lease.
   *
   * @throws ParameterException if it is shorter than 100 ms
   */
  public Duration lease(CommandSpec spec) {
    if (leaseMillis < 100) {
      throw new ParameterException(spec.commandLine(), "--lease must be at least 100 ms, found " + leaseMillis);
    }
    return Duration.ofMillis(leaseMillis);
  }
}
