package dev.rcrt.agui;

import dev.rcrt.a2a.internal.ServedAgents;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.Runs;
import dev.rcrt.agui.internal.AgUiEndpoint;
import dev.rcrt.agui.internal.Changes;
import dev.rcrt.agui.internal.Console;
import dev.rcrt.agui.internal.RunStreams;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.ValidationException;
import dev.rcrt.http.internal.HttpSettings;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves agent records to front-ends over AG-UI (the Agent-User Interaction protocol 1.0, as {@code
 * @ag-ui/client}'s {@code HttpAgent} speaks it): {@code POST /agui/<agent_id>} with a {@code
 * RunAgentInput} JSON body answers a {@code text/event-stream} of AG-UI events, derived from the
 * run's records.
 *
 * <p>The newest user message of the input is written as the agent's {@code user.message.v1} in
 * session {@code agui:<threadId>} (earlier runs of the thread are the agent's memory; the input's
 * earlier messages are not read) and answered by a durable run of the agent's {@link
 * AgentExecutor}. The stream is {@code RUN_STARTED}, then for each record of the run as it is
 * written, by this process or another on the same store: {@code TOOL_CALL_START}/{@code
 * _ARGS}/{@code _END} for a tool request (its input as recorded, secrets scrubbed), {@code
 * TOOL_CALL_RESULT} for a runner's response, {@code TEXT_MESSAGE_START}/{@code _CONTENT}/{@code
 * _END} for the answer and for what a round said beside its calls; and at the end {@code RUN_FINISHED} (outcome {@code success}), {@code
 * RUN_ERROR} (failed or cancelled), or {@code RUN_FINISHED} with outcome {@code interrupt} when a
 * call waits for approval (reason {@code tool_call}, payload {@code {approved, reason?}}) or its
 * tool's question waits for input (reason {@code input_required}, the question's schema). The
 * client's next input with {@code resume} entries writes the decisions or answers as {@link
 * #CALLER}, which counts only where the runner lists it ({@code ToolRunner.Builder.approvers}); a
 * host's decision ({@code ./rcrt runs approve}) resumes the run as well.
 *
 * <p>A round this process asks the model streams its text as it is written ({@link
 * AgentExecutor#streamText}: scrubbed as it grows), under the message id its record will have;
 * when the record comes it adds what did not stream yet and ends the message.
 *
 * <p>Every event has an SSE id derived from the records ({@code <record>.<n>}; text as it streams
 * {@code live.<records>.<round>.<characters>}), the same in every process: a client that posts the same input again with {@code Last-Event-ID} gets exactly the
 * events after that one, from whichever process of the store serves it. A stream ends when the run
 * stands still, or after {@link Builder#maxWait} (without an end event; post again with {@code
 * Last-Event-ID} to go on).
 *
 * <p>Security, as {@code A2aServer}: bound to 127.0.0.1 by default and answering only {@code Host}
 * names of the loopback interface; any other address needs a bearer token (refused at {@link
 * Builder#start()} without one); an {@code Origin} header must be one of {@link
 * Builder#allowedOrigins}; bodies are capped ({@link Builder#maxRequestBytes}), as is a message's
 * text, and a client has {@link Builder#requestTimeout} to send a request's body and to take in
 * each event; request heads and bodies are read without holding a thread (embedded Tomcat, NIO).
 * Errors are JSON {@code {"error": …}} with 400, 401, 403, 404, 405, 408, 409, 413 or 429, and a
 * server failure a 500 naming a log reference, never a stack trace or an exception's name, for any
 * request, one the server cannot parse included.
 *
 * <p>Thread-safe. A stream holds one of the server's 200 request threads while it lasts; at most 48
 * are held at once (503 with {@code Retry-After} beyond), so short requests are still served. {@link
 * #close()} stops listening and the executors the server made; the runner, model client and store
 * stay the host's.
 */
public final class AgUiServer implements AutoCloseable {
  /**
   * Who an AG-UI caller's decisions and answers are written as ({@code user:agui-caller}): list it
   * in {@code ToolRunner.Builder.approvers} for them to count.
   */
  public static final Principal CALLER = Principal.ofWriter("user:agui-caller");

  private static final Logger LOG = LoggerFactory.getLogger(AgUiServer.class);
  private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private final Builder config;
  private final ToolRunner runner;
  private final ServedAgents executors;
  private final AgUiEndpoint endpoint;

  private AgUiServer(Builder b) {
    this.config = b;
    this.runner = b.runner;
    this.executors = new ServedAgents(b.runner.store(), b.executors, b.serveRuns);
    Runs runs = new Runs(runner.store(), runner.policy(), runner.timeSource(), runner.approvers().toArray(Principal[]::new));
    RunStreams streams = new RunStreams(runner.store(), runs, executors, this::served, runner.policy(), runner.timeSource(), b.http.maxWait(), CALLER);
    try {
      Console console = b.console == null ? null : new Console(runner.store(), runs, runner, b.console);
      Changes changes = b.console == null ? null : new Changes(runner.store(), runner.timeSource(), b.http.maxWait());
      this.endpoint = new AgUiEndpoint(b.http.host(), b.http.port(), b.http.requestTimeout(), b.http.gate(), b.http.rate(runner.timeSource()),
          streams, b.http.maxMessageChars(), console, changes);
    } catch (RuntimeException e) {
      executors.close();
      throw e;
    }
    if (b.serveRuns) {
      for (String agentId : b.agents.isEmpty() ? AgentDefinition.ids(runner.store()) : b.agents) {
        AgentDefinition agent = served(agentId);
        if (agent != null) {
          executors.serve(agent);
        }
      }
    }
  }

  /** Starts a builder for a server whose agents run with {@code llm} and {@code runner} (and read and write {@code runner.store()}). */
  public static Builder builder(LlmClient llm, ToolRunner runner) {
    Objects.requireNonNull(llm, "llm");
    return new Builder(runner, agent -> AgentExecutor.builder(llm, runner).agent(agent).build());
  }

  /**
   * Starts a builder for a server whose agents run with the executors {@code executors} makes (once
   * per version of an agent's definition; the server closes them), each on {@code runner}.
   */
  public static Builder builder(ToolRunner runner, Function<AgentDefinition, AgentExecutor> executors) {
    return new Builder(runner, executors);
  }

  /** Where clients reach the server, such as {@code http://127.0.0.1:8810}. */
  public URI uri() {
    return endpoint.base();
  }

  /** The AG-UI endpoint of agent {@code agentId}: {@code <uri>/agui/<agentId>}. */
  public URI endpoint(String agentId) {
    return URI.create(uri() + "/agui/" + agentId);
  }

  /** The served agent of {@code agentId} (a record the host wrote, named with {@link Builder#agents} if any were), or null. */
  private @Nullable AgentDefinition served(String agentId) {
    if (!AGENT_ID.matcher(agentId).matches() || !config.agents.isEmpty() && !config.agents.contains(agentId)) {
      return null;
    }
    try {
      return AgentDefinition.load(runner.store(), agentId);
    } catch (NotFoundException e) {
      LOG.debug("agent '{}' is not served: {}", agentId, e.getMessage());
      return null;
    } catch (ValidationException e) {
      LOG.warn("agent '{}' is not served: {}", agentId, e.getMessage());
      return null;
    }
  }

  /** Stops listening, then the executors and threads this server made. Idempotent. */
  @Override
  public void close() {
    endpoint.close();
    executors.close();
  }

  /** Builder for {@link AgUiServer}. Not thread-safe. */
  public static final class Builder {
    private final ToolRunner runner;
    private final Function<AgentDefinition, AgentExecutor> executors;
    private final List<String> agents = new ArrayList<>();
    private final HttpSettings http = new HttpSettings();
    private java.util.@Nullable Set<String> console;
    private boolean serveRuns;

    private Builder(ToolRunner runner, Function<AgentDefinition, AgentExecutor> executors) {
      this.runner = Objects.requireNonNull(runner, "runner");
      this.executors = Objects.requireNonNull(executors, "executors");
    }

    /** Serve only these agents (their records must still be the host's); default every agent record the host wrote. */
    public Builder agents(String... agentIds) {
      for (String id : agentIds) {
        agents.add(Objects.requireNonNull(id, "agentId"));
      }
      return this;
    }

    /** Where to listen: a host address ({@code 127.0.0.1} by default) and port ({@code 0}, the default, for any free one). */
    public Builder http(String host, int port) {
      http.http(host, port);
      return this;
    }

    /** The token every request must carry ({@code Authorization: Bearer <token>}); required beyond loopback. Default none. */
    public Builder bearerToken(@Nullable String token) {
      http.bearerToken(token);
      return this;
    }

    /** Host names the {@code Host} header may name (any port); default the loopback names on a loopback address, else any. */
    public Builder allowedHosts(String... names) {
      http.allowedHosts(names);
      return this;
    }

    /** Origins a browser page may call from, such as {@code https://app.example.com}; default none (a request without {@code Origin} passes). */
    public Builder allowedOrigins(String... origins) {
      http.allowedOrigins(origins);
      return this;
    }

    /** The largest request body read, in bytes (at least 1,024); default 1 MiB. Larger ones are refused with 413. */
    public Builder maxRequestBytes(int bytes) {
      http.maxRequestBytes(bytes);
      return this;
    }

    /**
     * The POSTs (runs, resumes, console decisions) one client address may send a minute; default
     * 120. Beyond it the server answers 429 with {@code Retry-After}; the allowance refills evenly
     * over the minute.
     */
    public Builder maxRequestsPerMinute(int requests) {
      http.maxRequestsPerMinute(requests);
      return this;
    }

    /** The longest user message taken, in characters; default 100,000. */
    public Builder maxMessageChars(int chars) {
      http.maxMessageChars(chars);
      return this;
    }

    /** How long one stream follows a run, on the runner's {@code TimeSource}; default 5 minutes. */
    public Builder maxWait(Duration wait) {
      http.maxWait(wait);
      return this;
    }

    /**
     * How long a client may take to send a request's body, and leave its connection idle while it
     * sends a request's head or takes in an answer (each event); default 30 seconds, on the server's
     * wall clock (Tomcat's). A body not in by then is answered 408; an idle connection is closed.
     */
    public Builder requestTimeout(Duration timeout) {
      http.requestTimeout(timeout);
      return this;
    }

    /**
     * Also serves the console (default off): at {@code /} a page that shows runs by status, a run's
     * trail, the approvals that wait, the tool catalog with why a tool cannot run here, search by
     * meaning and a chat with any served agent through the AG-UI endpoint, updated live; its JSON
     * API is under {@code /api/} (behind the bearer token when there is one). Decisions made there
     * are written as {@code user:<name>} for one of {@code approvers} (case-insensitive names of
     * {@code A-Z a-z 0-9 . _ -}), and count where the runner lists that principal; with none, the
     * console decides nothing.
     */
    public Builder console(String... approvers) {
      java.util.Set<String> names = new java.util.LinkedHashSet<>();
      for (String a : approvers) {
        if (!a.matches("[A-Za-z0-9._-]{1,64}")) {
          throw new IllegalArgumentException("an approver's name is 1 to 64 of A-Z a-z 0-9 . _ -, found '" + a + "'");
        }
        names.add(a.toLowerCase(java.util.Locale.ROOT));
      }
      this.console = names;
      return this;
    }

    /**
     * Also serve the agents' runs from the store, as {@link AgentExecutor#start()} does (default
     * off): on a store several servers share, a run whose server died is taken over by another once
     * its lease ends, and a run waiting for a decision another process wrote goes on here. Agents
     * are those served when the server starts.
     */
    public Builder serveRuns(boolean serve) {
      this.serveRuns = serve;
      return this;
    }

    /**
     * Starts the server.
     *
     * @throws IllegalArgumentException on a non-loopback address without a bearer token
     * @throws UncheckedIOException when the address cannot be bound
     */
    public AgUiServer start() {
      http.checkReachable("an AG-UI server");
      return new AgUiServer(this);
    }
  }
}
