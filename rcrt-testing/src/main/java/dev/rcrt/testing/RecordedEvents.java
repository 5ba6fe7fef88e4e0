package dev.rcrt.testing;

import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * What one subscription delivers, in delivery order, for a test to wait on and then look at: pass it
 * to {@link dev.rcrt.core.BreadcrumbStore#subscribe} as the listener. A wait is woken by each event
 * delivered, never by sleeping, so it ends as soon as what it waits for arrives, however loaded the
 * machine.
 *
 * <p>Thread-safe: the store delivers on its threads while the test waits and reads on its own.
 */
public final class RecordedEvents implements BreadcrumbListener {
  private final List<BreadcrumbEvent> events = new ArrayList<>();

  /** Records {@code event} and wakes every wait. */
  @Override
  public synchronized void onEvent(BreadcrumbEvent event) {
    events.add(event);
    notifyAll();
  }

  /** The events delivered so far, oldest first: a copy, never null. */
  public synchronized List<BreadcrumbEvent> events() {
    return List.copyOf(events);
  }

  /** The titles of the events' records, in the same order: a copy, never null. */
  public List<String> titles() {
    return events().stream().map(e -> e.breadcrumb().title()).toList();
  }

  /**
   * Waits until at least {@code count} events were delivered, for at most {@code within} of real
   * time.
   *
   * @return whether they were: false once {@code within} passed with fewer
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public boolean awaitCount(int count, Duration within) throws InterruptedException {
    return await(delivered -> delivered.size() >= count, within);
  }

  /**
   * Waits until {@code done} holds for the events delivered so far, asking it now and again after
   * each event, for at most {@code within} of real time.
   *
   * @param done asked with the events delivered so far, oldest first, under this object's lock: it
   *     must not wait
   * @return whether {@code done} holds: false once {@code within} passed without it
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public boolean await(Predicate<List<BreadcrumbEvent>> done, Duration within) throws InterruptedException {
    return MonitorWaits.until(this, () -> done.test(events), within);
  }
}
