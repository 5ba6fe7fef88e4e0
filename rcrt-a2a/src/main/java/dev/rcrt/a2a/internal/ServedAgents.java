package dev.rcrt.a2a.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Subscription;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one {@link AgentExecutor} of each agent an A2A server serves, made from the newest version of
 * its record and replaced when the record changes: an edit of the agent record closes the executor
 * of the old version (its steps under way are interrupted and their runs freed at once, as {@link
 * AgentExecutor#close()} says) and the runs this server started on it go on under the new version,
 * from their records; a recorded round is not asked again, a call with a response does not run
 * again. So a server has one executor per agent however often the records are edited.
 *
 * <p>Thread-safe. {@link #close()} closes every executor; the factory's other resources stay its
 * owner's.
 */
public final class ServedAgents implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServedAgents.class);

  private final BreadcrumbStore store;
  private final Function<AgentDefinition, AgentExecutor> factory;
  private final boolean serveRuns;
  private final Map<String, Current> current = new HashMap<>(); // guarded by this
  private boolean closed; // guarded by this

  /** The executor of one version of an agent's definition, and the runs this server started on it. */
  private static final class Current {
    final AgentDefinition definition;
    final AgentExecutor executor;
    final @Nullable Subscription serving;
    /** The message of each run started here and not yet answered, by run id. */
    final Map<String, Breadcrumb> inFlight = new ConcurrentHashMap<>();
    volatile boolean retired;

    Current(AgentDefinition definition, AgentExecutor executor, @Nullable Subscription serving) {
      this.definition = definition;
      this.executor = executor;
      this.serving = serving;
    }
  }

  /**
   * @param factory makes an executor for a version of an agent's definition; the executors are
   *     this object's to close
   * @param serveRuns also serve each agent's runs from the store ({@link AgentExecutor#start()})
   */
  public ServedAgents(BreadcrumbStore store, Function<AgentDefinition, AgentExecutor> factory, boolean serveRuns) {
    this.store = store;
    this.factory = factory;
    this.serveRuns = serveRuns;
  }

  /** Makes agent {@code agent}'s executor now (with {@code serveRuns}, it starts serving its runs). */
  public void serve(AgentDefinition agent) {
    current(agent);
  }

  /** The id of the run in which {@code agent} answers {@code question}. */
  public String runIdOf(AgentDefinition agent, Breadcrumb question) {
    return current(agent).executor.runIdOf(question);
  }

  /**
   * Follows the text of run {@code runId}'s rounds as the executor of {@code agent}'s newest record
   * streams it in this process ({@link AgentExecutor#streamText}).
   */
  public Subscription streamText(AgentDefinition agent, String runId, dev.rcrt.agent.RunTextListener listener) {
    return current(agent).executor.streamText(runId, listener);
  }

  /**
   * Starts the run in which {@code agent} answers the stored {@code question}, on the executor of
   * the newest version of its record; it goes on under a newer one if the record is edited before
   * it ends. Returns at once.
   */
  public void answer(AgentDefinition agent, Breadcrumb question) {
    Current c = current(agent);
    follow(c, c.executor.runIdOf(question), question);
  }

  private void follow(Current c, String runId, Breadcrumb question) {
    c.inFlight.put(runId, question);
    c.executor.answerAsync(question).whenComplete((answer, failure) -> {
      if (c.retired) {
        return; // handed over to the executor of the newer version, which answers it
      }
      c.inFlight.remove(runId);
      if (failure != null) {
        LOG.warn("A2A run {} of agent '{}' ended with an error: {}", runId, c.definition.agentId(), failure.toString());
      }
    });
  }

  /**
   * The executor of the newest version of the agent's record. A request that loaded an older
   * version than the one served gets the served one; a newer one replaces it.
   */
  private Current current(AgentDefinition requested) {
    Current old;
    Current made;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the A2A server is closed");
      }
      old = current.get(requested.agentId());
      if (old != null && old.definition.equals(requested)) {
        return old;
      }
      AgentDefinition newest = old == null ? requested : AgentDefinition.load(store, requested.agentId());
      if (old != null && old.definition.equals(newest)) {
        return old; // the request read an older version than the one served
      }
      AgentExecutor executor = factory.apply(newest);
      made = new Current(newest, executor, serveRuns ? executor.start() : null);
      current.put(newest.agentId(), made);
      if (old != null) {
        old.retired = true;
      }
    }
    if (old != null) {
      retire(old);
    }
    return made;
  }

  /**
   * Closes the executor of an older version, then hands the runs this server started on it to the
   * agent's executor of the moment (under the lock, so a later retirement of that one sees them).
   */
  private void retire(Current old) {
    LOG.info("agent '{}' changed: its runs go on under the new version of its record", old.definition.agentId());
    if (old.serving != null) {
      old.serving.close();
    }
    old.executor.close();
    synchronized (this) {
      Current next = current.get(old.definition.agentId());
      if (next != null) {
        old.inFlight.forEach((runId, question) -> follow(next, runId, question));
      }
    }
  }

  /** Closes every executor. Idempotent. */
  @Override
  public void close() {
    List<Current> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(current.values());
      current.clear();
    }
    for (Current c : all) {
      c.retired = true;
      if (c.serving != null) {
        c.serving.close();
      }
      c.executor.close();
    }
  }
}
