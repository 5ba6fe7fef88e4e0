package dev.rcrt.cli.internal;

import dev.rcrt.agui.AgUiServer;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "console",
    description = {
      "Serve the console and the AG-UI endpoint until stopped. At / a web page shows runs by status, a run's",
      "trail, the calls that wait for approval (decided there by an --approver), the tool catalog with why a tool",
      "cannot run here, search by meaning, and a chat with any stored agent; it updates live. At /agui/ID a",
      "front-end runs agent ID over AG-UI 1.0 (POST a RunAgentInput, read the SSE stream); a call that waits",
      "for approval is an AG-UI interrupt. Listens on 127.0.0.1 unless --http names another host, which",
      "requires the bearer token in RCRT_CONSOLE_TOKEN (the page asks for it)."
    })
public final class ConsoleCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions store;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Mixin ModelOptions models;

  @Option(names = "--http", paramLabel = "[HOST:]PORT", converter = Converters.HostPort.class, defaultValue = "127.0.0.1:8810",
      description = "Where to listen, e.g. 8810 or 0.0.0.0:8810 (port 0: any free port; default: ${DEFAULT-VALUE}).")
  Converters.HostPortValue http = new Converters.HostPortValue("127.0.0.1", 8810);

  @Option(names = "--approver", paramLabel = "NAME",
      description = "Who may decide waiting calls in the console; written as user:NAME, which the runner then accepts (repeatable; default none: the console decides nothing).")
  List<String> approvers = new ArrayList<>();

  @Option(names = "--agent", paramLabel = "ID", description = "Serve this agent over AG-UI (repeatable; default: every agent record the host wrote).")
  List<String> agents = new ArrayList<>();

  @Option(names = "--allowed-origin", paramLabel = "ORIGIN", description = "Another Origin browsers may call from, e.g. https://app.example.com (repeatable; default none).")
  List<String> origins = new ArrayList<>();

  @Option(names = "--max-rounds", paramLabel = "N", defaultValue = "10", description = "Model calls allowed per turn (default: ${DEFAULT-VALUE}).")
  int maxRounds = 10;

  @Mixin LeaseOption lease;

  public ConsoleCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    if (maxRounds < 1) {
      throw new ParameterException(spec.commandLine(), "--max-rounds must be at least 1, found " + maxRounds);
    }
    List<Principal> deciders = new ArrayList<>(List.of(AgUiServer.CALLER));
    for (String name : approvers) {
      if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
        throw new ParameterException(spec.commandLine(), "--approver is a name of 1 to 64 of A-Z a-z 0-9 . _ -, found '" + name + "'");
      }
      deciders.add(Principal.ofWriter("user:" + name.toLowerCase(java.util.Locale.ROOT)));
    }
    Duration leaseTime = lease.lease(spec);
    models.check(spec, cli);
    String token = cli.env().get("RCRT_CONSOLE_TOKEN");
    // SIGTERM or Ctrl-C: stop serving, close the store (its embedding model with it), then end with status 0
    try (StopSignal signal = new StopSignal();
        Workspace workspace = new Workspace(store, cli);
        ToolRunner runner = workspace.runner(approval.forService(), trust.policy(), b -> b.approvers(deciders.toArray(Principal[]::new)))) {
      for (String id : agents) {
        workspace.agent(id); // an unknown agent is a usage error now, not a 404 later
      }
      AgUiServer.Builder builder = AgUiServer.builder(runner, models.executors(spec, cli, workspace, trust.policy(), runner, maxRounds, leaseTime))
          .serveRuns(!(workspace.store() instanceof InMemoryBreadcrumbStore))
          .console(approvers.toArray(String[]::new))
          .http(http.host(), http.port())
          .bearerToken(token)
          .allowedOrigins(origins.toArray(String[]::new))
          .agents(agents.toArray(String[]::new));
      try (AgUiServer server = builder.start()) {
        cli.note("console at " + server.uri() + "/" + (token == null ? "" : " (bearer token required)") + "; AG-UI at " + server.uri()
            + "/agui/ID" + (approvers.isEmpty() ? "; no --approver: the console decides nothing" : "; approvers " + approvers)
            + "; Ctrl-C to stop");
        signal.await();
      }
      return 0;
    }
  }
}
