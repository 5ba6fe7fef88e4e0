package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentObserver;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.tools.ToolRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "chat",
    description = {
      "Answer MESSAGE with an agent that discovers its tools from breadcrumbs, then exit.",
      "Without MESSAGE, read one message per line from stdin and keep the session (/exit to stop).",
      "The API key comes from RCRT_API_KEY, else OPENAI_API_KEY or OPENROUTER_API_KEY.",
      "With no --base-url and no key, an offline demo model is used (announced on stderr)."
    })
public final class ChatCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ChatCommand.class);

  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions breadcrumbs;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Mixin ModelOptions models;

  @Option(names = "--no-wait",
      description = "Write the message for the agents serving the shared --store (./rcrt runner --agents), print the run id and exit 0.")
  boolean noWait;

  @Option(names = "--wait", paramLabel = "DURATION", converter = Converters.Durations.class,
      description = "Wait at most this long for the answer (e.g. 3s, 2m, PT1H; default: until the run ends). On a shared --store the"
          + " run goes on without this process; the exit status is 1.")
  @Nullable Duration wait;

  @Option(names = "--agent", paramLabel = "ID", defaultValue = "default-chat-assistant", description = "agent_id of the agent definition to run (default: ${DEFAULT-VALUE}).")
  String agentId = "default-chat-assistant";

  @Option(names = "--session", paramLabel = "ID", description = "Session id (default: a new random id).")
  @Nullable String session;

  @Option(names = "--max-rounds", paramLabel = "N", defaultValue = "10", description = "Model calls allowed per turn (default: ${DEFAULT-VALUE}).")
  int maxRounds = 10;

  @Option(names = "--stream", description = "Print the answer's text as the model produces it (stream: true).")
  boolean stream;

  @Option(names = "--tool-mode", paramLabel = "MODE", defaultValue = "direct",
      converter = ToolModes.class,
      description = "direct (run tools in this process, the default) or event (write tool.request.v1 records for"
          + " ./rcrt runner processes on the same --store to answer; on the in-memory store this process answers).")
  AgentExecutor.ToolMode toolMode = AgentExecutor.ToolMode.DIRECT;

  /** {@code direct} or {@code event}. */
  static final class ToolModes implements picocli.CommandLine.ITypeConverter<AgentExecutor.ToolMode> {
    @Override
    public AgentExecutor.ToolMode convert(String value) {
      return switch (value) {
        case "direct" -> AgentExecutor.ToolMode.DIRECT;
        case "event" -> AgentExecutor.ToolMode.EVENT;
        default -> throw new picocli.CommandLine.TypeConversionException("expected direct or event, found '" + value + "'");
      };
    }
  }

  @Option(names = "--trace", paramLabel = "FILE",
      description = "Write the run's spans (invoke_agent, chat, execute_tool, after the OpenTelemetry GenAI conventions; no prompt or tool content unless --trace-content) to FILE as OTLP JSON, one line per span.")
  @Nullable Path trace;

  @Option(names = "--trace-content",
      description = "with --trace: put the conversation and the tools' arguments and results on the spans (the content the trail records; off by default)")
  boolean traceContent;

  @Option(names = "--dump", paramLabel = "FILE", description = "At exit, write every breadcrumb in the store to FILE as JSON Lines: the audit trail of the run.")
  @Nullable Path dump;

  @Parameters(arity = "0..*", paramLabel = "MESSAGE", description = "The message; several words are joined with spaces.")
  List<String> message = List.of();

  public ChatCommand(Cli cli) {
    this.cli = cli;
  }

  /** The model client with chat spans whose content is scrubbed of the runner's secrets, when tracing. */
  private LlmClient traced(LlmClient model, ToolRunner runner, @Nullable TraceFile tracing) {
    return tracing == null ? model : tracing.telemetry().instrument(model, models.providerName(cli, model), runner);
  }

  @Override
  public Integer call() throws IOException {
    if (maxRounds < 1) {
      throw new ParameterException(spec.commandLine(), "--max-rounds must be at least 1, found " + maxRounds);
    }
    if (wait != null && (wait.isNegative() || wait.isZero())) {
      throw new ParameterException(spec.commandLine(), "--wait must be positive, found " + wait);
    }
    if (noWait && message.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--no-wait needs MESSAGE on the command line");
    }
    if (traceContent && trace == null) {
      throw new ParameterException(spec.commandLine(), "--trace-content needs --trace FILE");
    }
    models.check(spec, cli);
    try (Workspace workspace = new Workspace(breadcrumbs, cli);
        TraceFile tracing = trace == null ? null
            : new TraceFile(trace, traceContent, cli.env().getOrDefault("OTEL_SERVICE_NAME", "rcrt-cli"))) {
      AgentDefinition agent = models.apply(workspace.agent(agentId));
      String sessionId = session != null ? session : UUID.randomUUID().toString();
      boolean shared = !(workspace.store() instanceof InMemoryBreadcrumbStore);
      if (noWait) {
        return submit(workspace, agent, sessionId, shared);
      }
      LlmClient model = models.client(spec, cli, agent, workspace.store(), trust.policy());
      try (ToolRunner runner = workspace.runner(approval.handler(cli, shared), trust.policy(),
              b -> {
                if (tracing != null) {
                  b.addInterceptor(tracing.telemetry().toolInterceptor());
                }
              });
          Subscription local = localRunner(runner, workspace);
          AgentExecutor executor = executor(agent, traced(model, runner, tracing), runner, tracing, workspace)) {
        if (!message.isEmpty()) {
          return answer(executor, workspace, new UserMessage(sessionId, String.join(" ", message)), shared);
        }
        return repl(executor, workspace, sessionId, shared);
      } finally {
        if (dump != null) {
          workspace.dump(dump);
        }
      }
    }
  }

  /** {@code --no-wait}: the message is written for the fleet; its run id is printed. */
  private int submit(Workspace workspace, AgentDefinition agent, String sessionId, boolean shared) {
    if (!shared) {
      throw new ParameterException(spec.commandLine(),
          "--no-wait needs a store other processes share, where ./rcrt runner --agents answers: pass --store postgresql://… or set RCRT_STORE");
    }
    Breadcrumb written = workspace.store().create(new UserMessage(sessionId, String.join(" ", message)).toBreadcrumb());
    cli.out().println(dev.rcrt.agent.Run.idOf(agent.agentId(), written.id()));
    cli.note("message " + written.id() + " written in session " + sessionId + "; ./rcrt runs show " + dev.rcrt.agent.Run.idOf(agent.agentId(),
        written.id()) + " --store " + breadcrumbs.store(cli) + " follows it");
    return 0;
  }

  /**
   * Answers one message, waiting at most {@code --wait}: prints the answer and exits 0, or 1 when
   * the run ended in an error, every tool call of it failed, or the wait ran out.
   */
  private int answer(AgentExecutor executor, Workspace workspace, UserMessage said, boolean shared) {
    Breadcrumb question = workspace.store().create(said.toBreadcrumb());
    String runId = executor.runIdOf(question);
    CompletableFuture<AgentResponse> answered = executor.answerAsync(question).toCompletableFuture();
    AgentResponse response;
    try {
      response = wait == null ? answered.get() : answered.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      cli.note("stopped waiting after " + human(wait) + ": run " + runId + " has not answered"
          + (shared ? "; it goes on in the processes serving the store (./rcrt runs show " + runId + " --store " + breadcrumbs.store(cli) + ")"
              : "; it ends with this process"));
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
    print(response.message());
    if (stream && (response.status() == AgentResponse.Status.ERROR || response.status() == AgentResponse.Status.CANCELLED)) {
      cli.out().println(response.message()); // not the model's streamed text: what ended the run (a refusal, a cut-off answer, a failure)
    }
    return failed(response, workspace, runId) ? 1 : 0;
  }

  /** Whether the run ended in an error, or every tool call it made failed. */
  private boolean failed(AgentResponse response, Workspace workspace, String runId) {
    if (response.status() == AgentResponse.Status.ERROR || response.status() == AgentResponse.Status.CANCELLED) {
      return true;
    }
    if (response.toolCalls() == 0) {
      return false;
    }
    List<Breadcrumb> results = workspace.store().search(Selector.schema("tool.response.v1").withAllTags("run:" + runId), 1000, 0);
    return !results.isEmpty() && results.stream().noneMatch(r -> "success".equals(r.contextText("status")));
  }

  private static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /**
   * With {@code --tool-mode event} on the in-memory store nobody else can answer, so this process
   * listens itself; on a shared store the {@code ./rcrt runner} processes answer.
   */
  private Subscription localRunner(ToolRunner runner, Workspace workspace) {
    boolean inProcess = toolMode == AgentExecutor.ToolMode.EVENT && workspace.store() instanceof InMemoryBreadcrumbStore;
    return inProcess ? runner.listen() : () -> {};
  }

  private AgentExecutor executor(AgentDefinition agent, LlmClient llm, ToolRunner runner, @Nullable TraceFile tracing, Workspace workspace) {
    AgentExecutor.Builder builder = AgentExecutor.builder(llm, runner).agent(agent).maxRounds(maxRounds);
    ChatQuestions questions = new ChatQuestions(cli, RunsCommand.runs(workspace), !(workspace.store() instanceof InMemoryBreadcrumbStore));
    builder.observer(new WaitingNotes(cli, breadcrumbs.store(cli), tracing == null ? AgentObserver.NONE : tracing.telemetry().agentObserver(),
        questions));
    if (toolMode == AgentExecutor.ToolMode.EVENT) {
      builder.toolMode(AgentExecutor.ToolMode.EVENT, Duration.ofSeconds(120));
    }
    if (stream) {
      builder.streamListener(text -> {
        cli.out().print(text);
        cli.out().flush();
      });
    }
    return builder.build();
  }

  private int repl(AgentExecutor executor, Workspace workspace, String sessionId, boolean shared) throws IOException {
    while (true) {
      if (cli.interactive()) {
        cli.err().print("you> ");
        cli.err().flush();
      }
      String line = cli.in().readLine();
      if (line == null || line.strip().equals("/exit") || line.strip().equals("/quit")) {
        return 0;
      }
      if (line.isBlank()) {
        continue;
      }
      try {
        answer(executor, workspace, new UserMessage(sessionId, line.strip()), shared);
      } catch (LlmException e) {
        cli.note(e.getMessage());
        LOG.debug("the model call failed", e); // -v: the stack trace too, as on every command
      }
    }
  }

  /** Prints the answer, or, when it was streamed, ends its line. */
  private void print(String answer) {
    cli.out().println(stream ? "" : answer);
  }
}
