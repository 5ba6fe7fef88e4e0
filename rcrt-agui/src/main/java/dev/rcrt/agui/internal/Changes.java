package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The console's live updates ({@code GET /api/events}): an SSE stream that says, for every record
 * of a run written in the store (by any process), {@code {type: "changed", schema_name, id, run}},
 * so the page reads again what changed. It starts with {@code {type: "ready"}}; when the page falls
 * more than {@value #BACKLOG} changes behind, the changes in between are one {@code {type:
 * "resync"}}; it ends after {@code maxWait} (the page reconnects). Names and ids only: what the
 * records say is read through the API.
 */
public final class Changes {
  static final int BACKLOG = 1000;
  private static final Set<String> SCHEMAS = Set.of("user.message.v1", "agent.response.v1", "tool.request.v1", "tool.response.v1",
      "approval.request.v1", "approval.decision.v1", "input.request.v1", "input.response.v1");
  private static final ObjectNode END = RcrtJson.object();

  private final BreadcrumbStore store;
  private final TimeSource time;
  private final Duration maxWait;

  public Changes(BreadcrumbStore store, TimeSource time, Duration maxWait) {
    this.store = store;
    this.time = time;
    this.maxWait = maxWait;
  }

  /** Sends the changes to {@code out} until {@code maxWait} passes or the client goes away (the send fails). */
  void follow(AgUiEndpoint.Events out) throws IOException {
    BlockingQueue<ObjectNode> queue = new ArrayBlockingQueue<>(BACKLOG + 1);
    AtomicBoolean behind = new AtomicBoolean();
    TimeSource.Timer deadline = time.schedule(maxWait, () -> {
      queue.clear();
      queue.offer(END);
    });
    try (Subscription s = store.subscribe(Selector.all(), event -> {
      Breadcrumb b = event.breadcrumb();
      if (SCHEMAS.contains(String.valueOf(b.schemaName()))) {
        ObjectNode change = RcrtJson.object().put("type", "changed").put("schema_name", b.schemaName()).put("id", b.id());
        b.tagValue("run:").ifPresent(run -> change.put("run", run));
        if (!queue.offer(change)) {
          behind.set(true);
        }
      }
    })) {
      out.send("ready", RcrtJson.object().put("type", "ready"));
      for (long n = 1; ; n++) {
        ObjectNode next = queue.take();
        if (next == END) {
          return;
        }
        if (behind.getAndSet(false)) {
          queue.clear();
          next = RcrtJson.object().put("type", "resync");
        }
        out.send(Long.toString(n), next);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      deadline.cancel();
    }
  }
}
