package dev.rcrt.cli.internal;

import dev.rcrt.a2a.A2aServer;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "serve",
    description = {
      "Serve the stored agents to A2A clients (protocol 0.3.0, JSON-RPC) until stopped: each agent record the",
      "host wrote (or each --agent) gets an Agent Card derived from it at /a2a/ID/.well-known/agent-card.json",
      "(the first's also at /.well-known/agent-card.json) and an endpoint at /a2a/ID. A message starts a run of",
      "the agent in session a2a:CONTEXT; the task is a record, so every process serving the same --store",
      "answers tasks/get, tasks/cancel and tasks/resubscribe. A tool that needs approval makes the task",
      "input-required: the caller's reply \"approve\" or \"deny\" decides it (or ./rcrt runs approve).",
      "On a shared --store the servers also serve these agents' runs as ./rcrt runner --agents does, so a run",
      "of a server that died is taken over by another. Listens on 127.0.0.1 unless --http names another host,",
      "which requires the bearer token in RCRT_A2A_TOKEN."
    })
public final class A2aServeCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions store;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Mixin ModelOptions models;

  @Option(names = "--http", paramLabel = "[HOST:]PORT", converter = Converters.HostPort.class, defaultValue = "127.0.0.1:8809",
      description = "Where to listen, e.g. 8809 or 0.0.0.0:8809 (port 0: any free port; default: ${DEFAULT-VALUE}).")
  Converters.HostPortValue http = new Converters.HostPortValue("127.0.0.1", 8809);

  @Option(names = "--agent", paramLabel = "ID", description = "Serve this agent (repeatable; default: every agent record the host wrote).")
  List<String> agents = new ArrayList<>();

  @Option(names = "--public-url", paramLabel = "URL", description = "The URL clients reach the server at, for the cards (behind a proxy).")
  @Nullable URI publicUrl;

  @Option(names = "--allowed-origin", paramLabel = "ORIGIN", description = "An Origin browsers may call from, e.g. https://app.example.com (repeatable; default none).")
  List<String> origins = new ArrayList<>();

  @Option(names = "--max-rounds", paramLabel = "N", defaultValue = "10", description = "Model calls allowed per turn (default: ${DEFAULT-VALUE}).")
  int maxRounds = 10;

  @Mixin LeaseOption lease;

  public A2aServeCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    if (maxRounds < 1) {
      throw new ParameterException(spec.commandLine(), "--max-rounds must be at least 1, found " + maxRounds);
    }
    Duration leaseTime = lease.lease(spec);
    models.check(spec, cli);
    String token = cli.env().get("RCRT_A2A_TOKEN");
    // SIGTERM or Ctrl-C: stop serving, close the store (its embedding model with it), then end with status 0
    try (StopSignal signal = new StopSignal();
        Workspace workspace = new Workspace(store, cli);
        ToolRunner runner = workspace.runner(approval.forService(), trust.policy(), b -> b.approvers(A2aServer.CALLER))) {
      for (String id : agents) {
        workspace.agent(id); // an unknown agent is a usage error now, not a 404 later
      }
      A2aServer.Builder builder = A2aServer.builder(runner, models.executors(spec, cli, workspace, trust.policy(), runner, maxRounds, leaseTime))
          .serveRuns(!(workspace.store() instanceof InMemoryBreadcrumbStore))
          .http(http.host(), http.port())
          .bearerToken(token)
          .allowedOrigins(origins.toArray(String[]::new))
          .agents(agents.toArray(String[]::new));
      if (publicUrl != null) {
        builder.publicUrl(publicUrl);
      }
      try (A2aServer server = builder.start()) {
        cli.note("A2A server listening on " + server.uri() + " serving " + server.agents() + (token == null ? "" : " (bearer token required)")
            + "; cards at " + server.uri() + "/a2a/ID/.well-known/agent-card.json; Ctrl-C to stop");
        signal.await();
      }
      return 0;
    }
  }
}
