package dev.rcrt.core;

/**
 * Receives the events of one subscription, one at a time, in commit order.
 *
 * <p>Called on a store thread: do not block for long; hand slow work to an executor. An exception
 * thrown here is logged by the store and does not end the subscription.
 */
@FunctionalInterface
public interface BreadcrumbListener {
  /** Called once per matching committed write. */
  void onEvent(BreadcrumbEvent event);
}
