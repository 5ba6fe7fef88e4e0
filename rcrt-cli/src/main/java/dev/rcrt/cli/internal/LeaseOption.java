package dev.rcrt.cli.internal;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The {@code --lease} option of the commands that claim work on a shared store ({@code runner}, {@code a2a serve}). */
public final class LeaseOption {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseOption.class);
  /**
   * Leases shorter than this can run out during one pause of a stop-the-world collector: G1 stopped
   * runners for 60 to 140 ms on a 2-core machine beside two busy loops.
   */
  static final Duration PAUSE_PROOF = Duration.ofMillis(300);

  @Option(names = "--lease", paramLabel = "MS", defaultValue = "15000",
      description = "How long a claim on a tool request or a run lasts unrenewed, in milliseconds: another process takes over"
          + " a dead one's work after this (default: ${DEFAULT-VALUE}). Below 300 ms, run on ZGC (./rcrt's default).")
  long leaseMillis = 15000;

  /**
   * The lease. One shorter than 300 ms on a collector that stops every thread while it works is
   * taken, with a warning in the log.
   *
   * @throws ParameterException if it is shorter than 100 ms
   */
  public Duration lease(CommandSpec spec) {
    if (leaseMillis < 100) {
      throw new ParameterException(spec.commandLine(), "--lease must be at least 100 ms, found " + leaseMillis);
    }
    Duration lease = Duration.ofMillis(leaseMillis);
    pauseWarning(lease, collectors()).ifPresent(LOG::warn);
    return lease;
  }

  /** The names of this JVM's collectors ({@link GarbageCollectorMXBean#getName()}), such as {@code G1 Young Generation}. */
  static List<String> collectors() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList();
  }

  /**
   * What to tell an operator whose {@code lease} may run out during a pause of the collector named
   * by {@code collectors}: empty for a lease of 300 ms or more, and for ZGC and Shenandoah, whose
   * pauses stay in milliseconds (and for no collector at all, Epsilon).
   */
  static Optional<String> pauseWarning(Duration lease, List<String> collectors) {
    if (lease.compareTo(PAUSE_PROOF) >= 0 || collectors.isEmpty()
        || collectors.stream().anyMatch(n -> n.startsWith("ZGC") || n.startsWith("Shenandoah"))) {
      return Optional.empty();
    }
    return Optional.of("--lease " + lease.toMillis() + " ms: this JVM's garbage collector (" + String.join(", ", collectors)
        + ") stops every thread while it works, for 60 to 140 ms measured on a loaded 2-core machine; no renewal runs meanwhile,"
        + " so other processes take this one's runs over and ask their model rounds again (tools still run once). Run on ZGC"
        + " (-XX:+UseZGC, ./rcrt's default) or with a lease of at least " + PAUSE_PROOF.toMillis() + " ms.");
  }
}
