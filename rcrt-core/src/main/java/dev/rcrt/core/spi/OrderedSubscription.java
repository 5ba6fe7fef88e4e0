package dev.rcrt.core.spi;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscription: events are queued in commit order (by the writer, under the store's lock) and
 * drained one at a time on the executor, outside any lock. At most one drain runs at a time, so a
 * listener never sees two events at once or out of order.
 */
public final class OrderedSubscription implements Subscription {
  private static final Logger LOG = LoggerFactory.getLogger(OrderedSubscription.class);

  private final Selector selector;
  private final BreadcrumbListener listener;
  private final Executor executor;
  private final Consumer<OrderedSubscription> onClose;
  private final Queue<BreadcrumbEvent> pending = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  private volatile boolean closed;

  /**
   * @param onClose called once when the subscription is closed, to unregister it
   */
  public OrderedSubscription(
      Selector selector,
      BreadcrumbListener listener,
      Executor executor,
      Consumer<OrderedSubscription> onClose) {
    this.selector = selector;
    this.listener = listener;
    this.executor = executor;
    this.onClose = onClose;
  }

  /** Queues the event if it matches; call under the store's write lock to keep commit order. */
  public boolean offer(BreadcrumbEvent.Type type, Breadcrumb breadcrumb) {
    if (closed || !selector.matches(breadcrumb)) {
      return false;
    }
    pending.add(new BreadcrumbEvent(type, breadcrumb));
    return true;
  }

  /** Starts a drain if events are pending and none is running; call after releasing the lock. */
  public void deliver() {
    if (!pending.isEmpty() && draining.compareAndSet(false, true)) {
      executor.execute(this::drain);
    }
  }

  private void drain() {
    try {
      BreadcrumbEvent event;
      while (!closed && (event = pending.poll()) != null) {
        try {
          listener.onEvent(event);
        } catch (RuntimeException e) {
          LOG.warn(
              "subscriber failed on {} of breadcrumb '{}'; the subscription continues",
              event.type(),
              event.breadcrumb().id(),
              e);
        }
      }
    } finally {
      draining.set(false);
    }
    deliver();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      pending.clear();
      onClose.accept(this);
    }
  }
}
