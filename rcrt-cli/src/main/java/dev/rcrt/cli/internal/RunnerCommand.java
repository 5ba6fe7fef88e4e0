package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
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
      "mode) until stopped, and with --agents the user messages for the stored agents too (their runs: model",
      "rounds, tool calls, approvals). Any number of runners may share one store: each request and each run step",
      "is claimed by one of them, and taken over by another if its runner dies. SIGTERM or Ctrl-C stops taking",
      "work, lets the work in flight finish and record its results, and exits 0."
    })
public final class RunnerCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions store;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Mixin ModelOptions models;

  @Option(names = "--agents", arity = "0..*", paramLabel = "ID",
      description = "Also serve these agents' runs: answer the messages their subscriptions select (user.message.v1 by default),"
          + " continue runs whose responses or approval decisions arrive, take over runs whose runner died. With no ID:"
          + " default-chat-assistant and every stored agent that names its own subscriptions.")
  @Nullable List<String> agents;

  @Option(names = "--tool-mode", paramLabel = "MODE", defaultValue = "direct", converter = ChatCommand.ToolModes.class,
      description = "With --agents: direct (the agents run their tools in this process, the default) or event (they write"
          + " tool.request.v1 records for the runners of the store).")
  AgentExecutor.ToolMode toolMode = AgentExecutor.ToolMode.DIRECT;

  @Option(names = "--no-tools", description = "Answer no tool requests (with --agents: serve the agents only).")
  boolean noTools;

  @Option(names = "--concurrency", paramLabel = "N", defaultValue = "4", description = "Tool calls run at once (default: ${DEFAULT-VALUE}).")
  int concurrency = 4;

  @Mixin LeaseOption lease;

  public RunnerCommand(Cli cli) {
    this.cli = cli;
  }

  /** The agents {@code --agents} names; with no ID, the default agent and every stored one with its own subscriptions. */
  private List<AgentDefinition> agents(Workspace workspace) {
    if (agents == null) {
      return List.of();
    }
    if (!agents.isEmpty()) {
      return agents.stream().map(id -> models.apply(workspace.agent(id))).toList();
    }
    Set<String> ids = new LinkedHashSet<>(List.of("default-chat-assistant"));
    for (String schema : AgentDefinition.SCHEMAS) {
      for (Breadcrumb b : workspace.store().search(Selector.schema(schema), 1000, 0)) {
        if (Principal.writerOf(b).isHost() && b.context().path("subscriptions").path("selectors").size() > 0) {
          ids.add(String.valueOf(b.contextText("agent_id")));
        }
      }
    }
    return ids.stream().map(id -> models.apply(workspace.agent(id))).toList();
  }

  @Override
  public Integer call() throws Exception {
    if (concurrency < 1) {
      throw new ParameterException(spec.commandLine(), "--concurrency must be at least 1, found " + concurrency);
    }
    models.check(spec, cli);
    if (noTools && agents == null) {
      throw new ParameterException(spec.commandLine(), "--no-tools leaves nothing to do without --agents");
    }
    Duration leaseTime = lease.lease(spec);
    // SIGTERM or Ctrl-C: finish the calls in flight, close the store (its embedding model with it), then end with status 0
    try (StopSignal signal = new StopSignal(); Workspace workspace = new Workspace(store, cli)) {
      if (workspace.store() instanceof InMemoryBreadcrumbStore) {
        throw new ParameterException(spec.commandLine(),
            "a runner needs a store other processes share: pass --store postgresql://… or set RCRT_STORE");
      }
      List<AgentExecutor> executors = new ArrayList<>();
      List<Subscription> serving = new ArrayList<>();
      try (ToolRunner runner = workspace.runner(approval.forService(), trust.policy(),
              b -> b.claimLease(leaseTime).listenerConcurrency(concurrency));
          Subscription listening = noTools ? () -> {} : runner.listen()) {
        for (AgentDefinition agent : agents(workspace)) {
          AgentExecutor executor = AgentExecutor.builder(models.client(spec, cli, agent, workspace.store(), trust.policy()), runner)
              .agent(agent).runLease(leaseTime).toolMode(toolMode, Duration.ofSeconds(60)).build();
          executors.add(executor);
          serving.add(executor.start());
        }
        cli.note("runner listening on " + store.store(cli) + (noTools ? "" : " for tool requests (concurrency " + concurrency + ")")
            + (executors.isEmpty() ? "" : " serving agents " + executors.stream().map(e -> e.agent().agentId()).toList())
            + "; SIGTERM to stop");
        signal.await();
        cli.note("stopping: no new work; finishing what is in flight");
        serving.forEach(Subscription::close);
        executors.forEach(AgentExecutor::close);
        listening.close();
        if (!runner.drain(Duration.ofSeconds(60))) {
          cli.note("calls still running after 60 s were abandoned; their requests are taken over by other runners");
        }
      } finally {
        cli.note("runner stopped");
      }
    }
    return 0;
  }
}
