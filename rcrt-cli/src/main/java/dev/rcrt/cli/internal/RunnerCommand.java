package dev.rcrt.cli.internal;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "runner",
    description = {
      "Answer the tool requests written to a shared store (./rcrt chat --tool-mode event, or agents in event",
      "mode) until stopped. Any number of runners may share one store: each request is claimed and run",
      "by one of them, and taken over by another if its runner dies. SIGTERM or Ctrl-C stops taking",
      "requests, lets the calls in flight finish and record their responses, and exits 0."
    })
public final class RunnerCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions store;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Option(names = "--concurrency", paramLabel = "N", defaultValue = "4", description = "Tool calls run at once (default: ${DEFAULT-VALUE}).")
  int concurrency = 4;

  @Option(names = "--lease", paramLabel = "MS", defaultValue = "15000",
      description = "How long a claim on a request lasts unrenewed, in milliseconds: another runner takes over a dead"
          + " runner's requests after this (default: ${DEFAULT-VALUE}).")
  long leaseMillis = 15000;

  private final CountDownLatch stop = new CountDownLatch(1);

  public RunnerCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    if (concurrency < 1) {
      throw new ParameterException(spec.commandLine(), "--concurrency must be at least 1, found " + concurrency);
    }
    if (leaseMillis < 100) {
      throw new ParameterException(spec.commandLine(), "--lease must be at least 100 ms, found " + leaseMillis);
    }
    try (Workspace workspace = new Workspace(store, cli)) {
      if (workspace.store() instanceof InMemoryBreadcrumbStore) {
        throw new ParameterException(spec.commandLine(),
            "a runner needs a store other processes share: pass --store postgresql://… or set RCRT_STORE");
      }
      CountDownLatch stopped = new CountDownLatch(1);
      Thread onSignal = new Thread(() -> {
        // SIGTERM or Ctrl-C: let the main thread finish the calls in flight, then end with status 0
        stop.countDown();
        try {
          if (stopped.await(90, TimeUnit.SECONDS)) {
            Runtime.getRuntime().halt(0);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "rcrt-runner-stop");
      Runtime.getRuntime().addShutdownHook(onSignal);
      try (ToolRunner runner = workspace.runner(approval.handler(cli), trust.policy(),
              b -> b.claimLease(Duration.ofMillis(leaseMillis)).listenerConcurrency(concurrency));
          Subscription listening = runner.listen()) {
        cli.note("runner listening on " + store.store(cli) + " (concurrency " + concurrency + "); SIGTERM to stop");
        stop.await();
        cli.note("stopping: no new requests; finishing the calls in flight");
        listening.close();
        if (!runner.drain(Duration.ofSeconds(60))) {
          cli.note("calls still running after 60 s were abandoned; their requests are taken over by other runners");
        }
      } finally {
        cli.note("runner stopped");
        stopped.countDown();
        try {
          Runtime.getRuntime().removeShutdownHook(onSignal);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: it ends the process with status 0
        }
      }
    }
    return 0;
  }
}
