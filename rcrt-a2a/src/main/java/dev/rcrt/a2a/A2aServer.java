package dev.rcrt.a2a;

import dev.rcrt.a2a.internal.A2aEndpoint;
import dev.rcrt.a2a.internal.AgentCards;
import dev.rcrt.a2a.internal.RecordRequestHandler;
import dev.rcrt.a2a.internal.ServedAgents;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.Runs;
import dev.rcrt.http.internal.HttpSettings;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRunner;
import io.a2a.spec.AgentCard;
import io.a2a.transport.jsonrpc.handler.JSONRPCHandler;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves agent records as A2A agents (protocol 0.3.0, JSON-RPC transport, on the official A2A
 * Java SDK's request types and handler): every agent definition the host wrote in the runner's
 * store, or those named with {@link Builder#agents}, gets an Agent Card derived from its record at
 * {@code /a2a/<agent_id>/.well-known/agent-card.json} (the {@link Builder#defaultAgent default
 * agent}'s also at {@code /.well-known/agent-card.json}) and a JSON-RPC endpoint at {@code
 * /a2a/<agent_id>}.
 *
 * <p>A message is written as the agent's {@code user.message.v1} in session {@code
 * a2a:<contextId>} (so earlier tasks of the same context are the agent's memory) and answered by a
 * durable run of the agent's {@link AgentExecutor}; the task is an {@code a2a.task.v1} record that
 * names the run, and its state, status updates and answer artifact are read from the run's records.
 * Any process serving the same store therefore answers {@code tasks/get}, {@code tasks/cancel}
 * (which cancels the run) and {@code tasks/resubscribe} for it, and a run another process takes
 * over after a crash shows in the task. A call that waits for approval is the task's {@code
 * input-required} state; the caller's explicit reply (the whole text {@code "approve"} or {@code
 * "deny"}, or a data part {@code {"decision", "call_id"?, "reason"?}}) decides the call it names, or
 * the single one waiting, and is written as an approval decision by {@link #CALLER}, which counts only where the
 * runner lists it ({@code ToolRunner.Builder.approvers(A2aServer.CALLER)}); a host's decision
 * ({@code ./rcrt runs approve}) resumes it as well. The run is taken by this process; with {@link
 * Builder#serveRuns} the servers of a shared store also take over each other's runs after a crash.
 *
 * <p>Security: bound to 127.0.0.1 by default and answering only {@code Host} names of the loopback
 * interface; any other address needs a bearer token (refused at {@link Builder#start()} without
 * one); an {@code Origin} header must be one of {@link Builder#allowedOrigins}; bodies are capped
 * ({@link Builder#maxRequestBytes}), as is a message's text, and a client has {@link
 * Builder#requestTimeout} to send a request's body, and to leave its connection idle while it sends
 * a request's head or takes in an answer; request heads and bodies are read without holding a
 * thread (embedded Tomcat, NIO), so clients that send them slowly lock no one out; a client
 * address may send {@link Builder#maxRequestsPerMinute} messages a minute (429 beyond). Cards are
 * public; everything else needs the token when there is one.
 *
 * <p>Thread-safe. {@link #close()} stops listening and the executors the server made; the runner,
 * model client and store stay the host's.
 */
public final class A2aServer implements AutoCloseable {
  /**
   * Who an A2A caller's approval decisions are written as ({@code user:a2a-caller}): list it in
   * {@code ToolRunner.Builder.approvers} for the caller's replies to count.
   */
  public static final Principal CALLER = RecordRequestHandler.CALLER;

  private static final Logger LOG = LoggerFactory.getLogger(A2aServer.class);
  private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private final Builder config;
  private final ToolRunner runner;
  private final Runs runs;
  private final ExecutorService streams;
  private final ServedAgents executors;
  private final A2aEndpoint endpoint;

  private A2aServer(Builder b) {
    this.config = b;
    this.runner = b.runner;
    this.runs = new Runs(b.runner.store(), b.runner.policy(), b.runner.timeSource(), CALLER);
    this.streams = dev.rcrt.core.spi.DaemonThreads.pool(8, "rcrt-a2a-stream");
    this.executors = new ServedAgents(b.runner.store(), b.executors, b.serveRuns);
    try {
      this.endpoint = new A2aEndpoint(b.http.host(), b.http.port(), b.http.requestTimeout(), b.publicUrl, this::served, b.http.gate(),
          b.http.rate(b.runner.timeSource()));
    } catch (RuntimeException e) {
      streams.shutdownNow();
      throw e;
    }
    if (b.serveRuns) {
      for (String agentId : agents()) {
        executors.serve(AgentDefinition.load(runner.store(), agentId));
      }
    }
  }

  /**
   * Starts a builder for a server whose agents run with {@code llm} and {@code runner} (and read and
   * write {@code runner.store()}).
   */
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

  /** Where clients reach the server, such as {@code http://127.0.0.1:8809} (the public URL when one was given). */
  public URI uri() {
    return endpoint.base();
  }

  /** The Agent Card URL of agent {@code agentId}: {@code <uri>/a2a/<agentId>/.well-known/agent-card.json}. */
  public URI cardUri(String agentId) {
    return URI.create(uri() + "/a2a/" + agentId + "/.well-known/agent-card.json");
  }

  /** The agents served now: those named with {@link Builder#agents}, else every agent record the host wrote. */
  public List<String> agents() {
    return config.agents.isEmpty() ? AgentDefinition.ids(runner.store()) : List.copyOf(config.agents);
  }

  /** The card of agent {@code agentId} as served now, or null when it is not served (no trusted record). */
  public @Nullable AgentCard card(String agentId) {
    A2aEndpoint.Served served = served(agentId, uri(), true);
    return served == null ? null : served.card();
  }

  private A2aEndpoint.@Nullable Served served(@Nullable String requested, URI base, boolean skills) {
    String agentId = requested != null ? requested : defaultAgent();
    if (agentId == null || !AGENT_ID.matcher(agentId).matches() || !config.agents.isEmpty() && !config.agents.contains(agentId)) {
      return null; // without a list, every agent the host wrote is served: load() below accepts only those
    }
    AgentDefinition agent;
    try {
      agent = AgentDefinition.load(runner.store(), agentId);
    } catch (NotFoundException e) {
      LOG.debug("agent '{}' is not served: {}", agentId, e.getMessage()); // any caller may name any id
      return null;
    } catch (ValidationException e) {
      LOG.warn("agent '{}' is not served: {}", agentId, e.getMessage());
      return null;
    }
    List<ToolDefinition> tools = skills ? runner.discovery().discover().items() : List.of();
    AgentCard card = AgentCards.card(agent, tools, base + "/a2a/" + agentId, config.http.bearerToken() != null);
    RecordRequestHandler records = new RecordRequestHandler(agent, runner.store(), executors, runs,
        new RecordRequestHandler.Limits(config.http.maxMessageChars(), config.http.maxWait()), streams, runner.timeSource());
    return new A2aEndpoint.Served(card, new JSONRPCHandler(card, records, streams));
  }

  private @Nullable String defaultAgent() {
    if (config.defaultAgent != null) {
      return config.defaultAgent;
    }
    List<String> served = agents();
    return served.contains("default-chat-assistant") ? "default-chat-assistant" : served.isEmpty() ? null : served.get(0);
  }

  /** Stops listening, then the executors and threads this server made. Idempotent. */
  @Override
  public void close() {
    endpoint.close();
    executors.close();
    streams.shutdownNow();
  }

  /** Builder for {@link A2aServer}. Not thread-safe. */
  public static final class Builder {
    private final ToolRunner runner;
    private final List<String> agents = new ArrayList<>();
    private @Nullable String defaultAgent;
    private final HttpSettings http = new HttpSettings();
    private @Nullable URI publicUrl;
    private final Function<AgentDefinition, AgentExecutor> executors;
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

    /** The agent whose card is at {@code /.well-known/agent-card.json}; default {@code default-chat-assistant} when served, else the first. */
    public Builder defaultAgent(String agentId) {
      this.defaultAgent = Objects.requireNonNull(agentId, "agentId");
      return this;
    }

    /** Where to listen; default 127.0.0.1 and port 0 (any free port, see {@link A2aServer#uri()}). */
    public Builder http(String host, int port) {
      http.http(host, port);
      return this;
    }

    /** The token JSON-RPC requests must send as {@code Authorization: Bearer <token>}; required on a non-loopback address. */
    public Builder bearerToken(@Nullable String token) {
      http.bearerToken(token);
      return this;
    }

    /**
     * Host names a request's {@code Host} header may name (any port). Default: the loopback names
     * ({@code localhost}, {@code 127.0.0.1}, {@code ::1}) on a loopback address, any name elsewhere.
     */
    public Builder allowedHosts(String... names) {
      http.allowedHosts(names);
      return this;
    }

    /** Origins a request's {@code Origin} header may name, such as {@code https://app.example.com}; default none (requests without one pass). */
    public Builder allowedOrigins(String... origins) {
      http.allowedOrigins(origins);
      return this;
    }

    /** The largest request body read, in bytes; default 1 MiB. Larger ones are refused with 413. */
    public Builder maxRequestBytes(int bytes) {
      http.maxRequestBytes(bytes);
      return this;
    }

    /**
     * How long a client may take to send a request's body, and leave its connection idle while it
     * sends a request's line and headers or takes in an answer; default 30 s, on the server's wall
     * clock (Tomcat's). Heads and bodies are read without holding a thread, so clients that trickle
     * their requests (slowloris) hold connections, not threads; a body not in by the timeout is
     * answered 408 and its connection closed, and an idle connection is closed. A caller that stops
     * taking in a stream for that long is cut off the same way, which frees the thread writing it.
     * Answering is not otherwise bounded by it: a stream or a blocking {@code message/send} runs as
     * long as {@link #maxWait} allows.
     */
    public Builder requestTimeout(Duration timeout) {
      http.requestTimeout(timeout);
      return this;
    }

    /**
     * The messages ({@code message/send}, {@code message/stream}: each starts a model run) one client
     * address may send a minute; default 120. Beyond it the server answers 429 with {@code
     * Retry-After}; the allowance refills evenly over the minute. Reading tasks is not counted.
     */
    public Builder maxRequestsPerMinute(int requests) {
      http.maxRequestsPerMinute(requests);
      return this;
    }

    /** The most characters of text one message may carry; default 100,000. */
    public Builder maxMessageChars(int chars) {
      http.maxMessageChars(chars);
      return this;
    }

    /**
     * How long a blocking {@code message/send}, and a stream, follow a task before answering with
     * it as it stands (the run goes on; {@code tasks/get} follows it); default 5 minutes.
     */
    public Builder maxWait(Duration wait) {
      http.maxWait(wait);
      return this;
    }

    /**
     * The URL clients reach the server at, for the cards (behind a proxy); default {@code
     * http://HOST:PORT}, with this machine's host name for a server on every interface ({@code
     * 0.0.0.0}, {@code ::}), which no client could reach at that address.
     */
    public Builder publicUrl(URI url) {
      String text = url.toString();
      this.publicUrl = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
      return this;
    }

    /**
     * Also serve the agents' runs from the store, as {@link AgentExecutor#start()} does (default
     * off): on a store several servers share, a run whose server died is taken over by another once
     * its lease ends, and a run waiting for a decision another process wrote goes on here. The
     * executors then also answer every other message their agents' subscriptions select, as {@code
     * ./rcrt runner --agents} does. Agents are those served when the server starts.
     */
    public Builder serveRuns(boolean serve) {
      this.serveRuns = serve;
      return this;
    }

    /**
     * Starts listening.
     *
     * @throws IllegalArgumentException on a non-loopback address without a bearer token
     * @throws UncheckedIOException when the address cannot be bound
     */
    public A2aServer start() {
      http.checkReachable("an A2A server");
      return new A2aServer(this);
    }
  }
}
