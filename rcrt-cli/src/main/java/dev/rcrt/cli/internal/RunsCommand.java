package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.DemoLlmClient;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "runs",
    description = {
      "Agent runs kept in the store: each turn is a run whose records are its state. List them, show one, decide a call",
      "that waits for approval, answer a tool's question, resume or cancel one. With --store shared by other processes, a decision is taken up by",
      "whichever process serves the agent (./rcrt runner --agents)."
    })
public final class RunsCommand extends GroupCommand {

  static Runs runs(Workspace workspace) {
    return new Runs(workspace.store(), dev.rcrt.tools.ToolTrustPolicy.defaults(), dev.rcrt.core.TimeSource.system());
  }

  @Command(name = "list", description = "One line per run, newest first: id, status, agent, last write, what it waits for.")
  public static final class ListRuns implements Callable<Integer> {
    private final Cli cli;

    @Mixin StoreOptions breadcrumbs;

    @Option(names = "--status", paramLabel = "STATUS", split = ",",
        description = "Only runs in these statuses: running, waiting_for_tools, waiting_for_approval, waiting_for_input, done, failed,"
            + " cancelled.")
    List<String> statuses = List.of();

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "At most N runs (default: ${DEFAULT-VALUE}).")
    int limit = 20;

    public ListRuns(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      Run.Status[] wanted = statuses.stream().map(s -> Run.Status.valueOf(s.strip().toUpperCase(Locale.ROOT))).toArray(Run.Status[]::new);
      try (Workspace workspace = Workspace.reading(breadcrumbs, cli)) {
        for (Run run : runs(workspace).list(Math.max(1, limit), wanted)) {
          cli.out().printf("%s  %-20s %-24s %s  %s%n", run.id(), run.status().wire(), run.agentId(), run.updatedAt(), waiting(run));
        }
      }
      return 0;
    }
  }

  /** What a run waits for, in a few words. */
  static String waiting(Run run) {
    StringBuilder text = new StringBuilder();
    for (Run.PendingCall p : run.pending()) {
      text.append(text.isEmpty() ? "" : ", ").append(p.approval() != null ? "approval of " : p.question() != null ? "input for " : "")
          .append(p.tool()).append(" (call ")
          .append(p.requestId()).append(')');
    }
    return text.toString();
  }

  @Command(name = "show", description = "A run: its status, the calls it waits for, its answer and its records, oldest first.")
  public static final class ShowRun implements Callable<Integer> {
    private final Cli cli;

    @Mixin StoreOptions breadcrumbs;

    @Parameters(paramLabel = "RUN", description = "The run id (./rcrt runs list, or printed by chat --no-wait).")
    String runId = "";

    public ShowRun(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      try (Workspace workspace = Workspace.reading(breadcrumbs, cli)) {
        Run run = runs(workspace).show(runId).orElseThrow(() -> new NotFoundException("no run '" + runId + "' in this store"));
        cli.out().println("run      " + run.id());
        cli.out().println("status   " + run.status().wire());
        cli.out().println("agent    " + run.agentId() + "   session " + run.sessionId() + "   message " + run.triggerId());
        cli.out().println("rounds   " + run.rounds());
        for (Run.PendingCall p : run.pending()) {
          if (p.question() != null) {
            cli.out().println("waits    input for " + p.tool() + ": " + p.question().message() + "   call " + p.requestId() + "   expires "
                + p.question().expiresAt());
            cli.out().println("         values   " + RcrtJson.write(p.question().requestedSchema()));
            continue;
          }
          cli.out().println("waits    " + (p.approval() != null ? "approval of " : "a runner for ") + p.tool() + " " + RcrtJson.write(p.input())
              + "   call " + p.requestId() + (p.approval() != null ? "   expires " + p.approval().expiresAt() : ""));
        }
        run.ignoredDecisions().forEach(d -> cli.out().println("ignored  decision " + d + " (not the host or an approver)"));
        if (run.answer() != null) {
          cli.out().println("answer   [" + run.answer().status().wire() + "] " + run.answer().message());
        }
        for (Breadcrumb b : run.records()) {
          cli.out().printf("  %s  %-20s %-38s %s%n", b.createdAt(), b.schemaName(), b.id(), b.title());
        }
      }
      return 0;
    }
  }

  /** {@code runs approve} and {@code runs deny}. */
  abstract static class Decide implements Callable<Integer> {
    private final Cli cli;

    @Mixin StoreOptions breadcrumbs;

    @Parameters(index = "0", paramLabel = "RUN", description = "The run id.")
    String runId = "";

    @Parameters(index = "1", paramLabel = "CALL", description = "The call waiting for approval: its request id (./rcrt runs show RUN).")
    String callId = "";

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why; recorded with the decision.")
    @Nullable String reason;

    Decide(Cli cli) {
      this.cli = cli;
    }

    abstract boolean approve();

    @Override
    public Integer call() {
      try (Workspace workspace = new Workspace(breadcrumbs, cli)) {
        Runs runs = runs(workspace);
        if (approve()) {
          runs.approve(runId, callId, Principal.host(), reason);
        } else {
          runs.deny(runId, callId, Principal.host(), reason);
        }
        cli.note((approve() ? "approved" : "denied") + " call " + callId + " of run " + runId
            + "; the process serving the agent takes the run up (./rcrt runner --agents, or ./rcrt runs resume " + runId + " --store "
            + breadcrumbs.store(cli) + ")");
      }
      return 0;
    }
  }

  @Command(name = "approve", description = "Approve a call that waits for approval; the run goes on in whichever process takes it up.")
  public static final class Approve extends Decide {
    public Approve(Cli cli) {
      super(cli);
    }

    @Override
    boolean approve() {
      return true;
    }
  }

  @Command(name = "deny", description = "Deny a call that waits for approval: it is answered tool_denied and the run goes on.")
  public static final class Deny extends Decide {
    public Deny(Cli cli) {
      super(cli);
    }

    @Override
    boolean approve() {
      return false;
    }
  }

  @Command(name = "answer", description = {
      "Answer the question a call's tool asked its user (the run is waiting_for_input): VALUES, a JSON object that fits what",
      "the tool asked for (./rcrt runs show RUN prints it), or --decline / --cancel. The call runs again with the answer in",
      "whichever process takes the run up."})
  public static final class Answer implements Callable<Integer> {
    private final Cli cli;

    @Spec CommandSpec spec;

    @Mixin StoreOptions breadcrumbs;

    @Parameters(index = "0", paramLabel = "RUN", description = "The run id.")
    String runId = "";

    @Parameters(index = "1", paramLabel = "CALL", description = "The call whose tool asks: its request id (./rcrt runs show RUN).")
    String callId = "";

    @Parameters(index = "2", arity = "0..1", paramLabel = "VALUES", description = "The answer's values, a JSON object such as '{\"name\": \"Ada\"}'.")
    @Nullable String values;

    @Option(names = "--decline", description = "Refuse to answer (the tool hears 'decline').")
    boolean decline;

    @Option(names = "--cancel", description = "Dismiss the question (the tool hears 'cancel').")
    boolean cancel;

    public Answer(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      ToolExchange.Elicited answer = elicited();
      try (Workspace workspace = new Workspace(breadcrumbs, cli)) {
        runs(workspace).answer(runId, callId, answer, Principal.host());
        cli.note("answered call " + callId + " of run " + runId + " (" + answer.action().wire() + "); the process serving the agent takes the"
            + " run up (./rcrt runner --agents, or ./rcrt runs resume " + runId + " --store " + breadcrumbs.store(cli) + ")");
      }
      return 0;
    }

    private ToolExchange.Elicited elicited() {
      if ((decline || cancel) && values != null || decline && cancel) {
        throw new ParameterException(spec.commandLine(), "give VALUES, --decline or --cancel: one of them, not several");
      }
      if (decline || cancel) {
        return new ToolExchange.Elicited(decline ? ToolExchange.Elicited.Action.DECLINE : ToolExchange.Elicited.Action.CANCEL, null);
      }
      if (values == null) {
        throw new ParameterException(spec.commandLine(), "give the answer's VALUES as a JSON object (./rcrt runs show " + runId + " says what the tool asks for),"
            + " or --decline or --cancel");
      }
      return new ToolExchange.Elicited(ToolExchange.Elicited.Action.ACCEPT, RcrtJson.parse(values));
    }
  }

  @Command(name = "cancel", description = "End a run now: its answer says it was cancelled, and no process takes another step of it.")
  public static final class Cancel implements Callable<Integer> {
    private final Cli cli;

    @Mixin StoreOptions breadcrumbs;

    @Parameters(paramLabel = "RUN", description = "The run id.")
    String runId = "";

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why; recorded in the answer.")
    @Nullable String reason;

    public Cancel(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      try (Workspace workspace = new Workspace(breadcrumbs, cli)) {
        AgentResponse answer = runs(workspace).cancel(runId, reason);
        cli.out().println("[" + answer.status().wire() + "] " + answer.message());
      }
      return 0;
    }
  }

  @Command(name = "resume", description = {
      "Continue a run in this process from its records (after the process taking it died, or to take up a decided call):",
      "recorded model rounds are not asked again, answered calls do not run again. Prints the answer."})
  public static final class Resume implements Callable<Integer> {
    private final Cli cli;

    @Spec CommandSpec spec;

    @Mixin StoreOptions breadcrumbs;

    @Mixin ModelOptions models;

    @Mixin ApprovalOption approval;

    @Mixin TrustOption trust;

    @Parameters(paramLabel = "RUN", description = "The run id.")
    String runId = "";

    public Resume(Cli cli) {
      this.cli = cli;
    }

    /**
     * The agent with the model its run's rounds were answered by (as the model named itself), so a
     * run resumes on the model it started with, as the hints printed elsewhere promise; {@code
     * --model} still wins, and the offline demo's name is never sent to a real endpoint.
     */
    private AgentDefinition withRecordedModel(AgentDefinition agent, Run run) {
      String recorded = run.records().stream().filter(Run::isRound).map(b -> b.contextText("model"))
          .filter(m -> m != null && !m.isBlank() && !DemoLlmClient.MODEL.equals(m)).findFirst().orElse(null);
      if (recorded == null || models.model != null || recorded.equals(agent.model())) {
        return agent;
      }
      cli.note("resuming on model " + recorded + ", which answered the run's rounds (--model to choose another)");
      return agent.withModel(recorded);
    }

    @Override
    public Integer call() throws InterruptedException {
      models.check(spec, cli);
      try (Workspace workspace = new Workspace(breadcrumbs, cli)) {
        Run run = runs(workspace).show(runId).orElseThrow(() -> new NotFoundException("no run '" + runId + "' in this store"));
        AgentDefinition agent = models.apply(withRecordedModel(workspace.agent(run.agentId()), run));
        LlmClient llm = models.client(spec, cli, agent, workspace.store(), trust.policy());
        try (ToolRunner runner = workspace.runner(approval.handler(cli, true), trust.policy());
            AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent)
                .observer(new WaitingNotes(cli, breadcrumbs.store(cli), dev.rcrt.agent.AgentObserver.NONE)).build()) {
          AgentResponse answer = executor.resume(runId).toCompletableFuture().get();
          cli.out().println(answer.message());
          return answer.status() == AgentResponse.Status.ERROR || answer.status() == AgentResponse.Status.CANCELLED ? 1 : 0;
        } catch (ExecutionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
      }
    }
  }
}
