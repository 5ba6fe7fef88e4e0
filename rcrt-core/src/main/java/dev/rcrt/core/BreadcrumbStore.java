package dev.rcrt.core;

import java.util.List;
import java.util.Optional;

/**
 * Where breadcrumbs live. Hosts implement this over their own storage (an RCRT server, a database)
 * and prove it with the contract suite; {@link InMemoryBreadcrumbStore} is the reference.
 *
 * <p><b>Thread-safety:</b> implementations must be safe for concurrent use by any number of
 * threads. Every write is atomic: a reader sees a breadcrumb either before or after a write, never
 * half of it.
 *
 * <p><b>Versions:</b> a created breadcrumb has version 1; each successful update adds 1. Updates
 * are optimistic: the caller names the version it read, and a stale version is refused with a
 * {@link ConflictException} and no write, so concurrent writers never lose an update.
 *
 * <p><b>Expiry:</b> a breadcrumb whose TTL has passed ({@code ttl_type} {@code datetime}, {@code
 * duration}, {@code usage} or {@code hybrid}, judged on the store's clock) is invisible to {@link
 * #get}, {@link #search}, {@link #history} and subscriptions until {@link #purgeExpired()} removes
 * it.
 *
 * <p><b>Ordering:</b> search returns newest first, by the time of the last write (create or
 * update), ties broken by write order. Subscribers receive the events of one subscription in the
 * order the writes committed.
 */
public interface BreadcrumbStore {

  /**
   * Creates a breadcrumb at version 1. A payload whose {@code idempotency_key} was already used
   * returns the record that key created (at its current version) and writes nothing.
   *
   * @return the stored record with id, version, checksum, size and timestamps filled in
   * @throws ConflictException if the payload names an id that already exists (expected version 0)
   * @throws ValidationException if the payload is refused by the store's rules
   */
  Breadcrumb create(BreadcrumbCreate create);

  /**
   * Creates a breadcrumb, as {@link #create(BreadcrumbCreate)} does, only while {@code fence} is
   * the current claim of its key in this store's {@link #claims()}: same token, not completed, lease
   * not run out on the store's clock. The check and the write are one atomic step (on PostgreSQL,
   * one statement that locks the claim's row), so a worker that lost its claim (taken over after a
   * stall, a pause, {@code SIGSTOP}) can never write on behalf of the work, and a takeover waits
   * for a fenced write under way. The fence is checked before the idempotency key.
   *
   * <p>The default, for a store that offers no {@link #claims()} of its own, throws {@link
   * UnsupportedOperationException}: callers then fence with the JVM-local claims ({@code
   * dev.rcrt.core.spi.Leases.Held#create}). A store that returns claims must override this.
   *
   * @return the stored record
   * @throws ClaimLostException if {@code fence} is no longer the current, unexpired claim; nothing is written
   * @throws ConflictException as {@link #create(BreadcrumbCreate)}
   * @throws ValidationException as {@link #create(BreadcrumbCreate)}
   */
  default Breadcrumb create(BreadcrumbCreate create, WorkClaims.Claim fence) {
    throw new UnsupportedOperationException(getClass().getName() + " offers no claims of its own, so it cannot fence a write;"
        + " fence through the JVM's claims (Leases.Held.create)");
  }

  /**
   * Reads the current version of a breadcrumb. For a {@code usage} or {@code hybrid} TTL, this
   * counts as one read.
   *
   * @return the record, or empty if no breadcrumb has that id or it has expired
   */
  Optional<Breadcrumb> get(String id);

  /**
   * Applies an update if the stored version is still {@code expectedVersion}.
   *
   * @return the stored record at version {@code expectedVersion + 1}
   * @throws NotFoundException if no breadcrumb has that id
   * @throws ConflictException if the stored version differs; nothing is written
   * @throws ValidationException if the update is refused by the store's rules
   */
  Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update);

  /**
   * Deletes a breadcrumb and its history.
   *
   * @return true if it existed
   */
  boolean delete(String id);

  /**
   * The breadcrumbs that match a selector, newest first.
   *
   * @param limit at most this many, at least 1
   * @param offset skip this many matches first, at least 0
   * @return an immutable list, empty when nothing matches
   * @throws IllegalArgumentException if limit &lt; 1 or offset &lt; 0
   */
  List<Breadcrumb> search(Selector selector, int limit, int offset);

  /**
   * Every version of a breadcrumb, oldest first, ending with the current one.
   *
   * @throws NotFoundException if no breadcrumb has that id
   */
  List<Breadcrumb> history(String id);

  /**
   * Delivers an event for every later create, update and delete of a breadcrumb that matches the
   * selector (for a delete, the last stored version is matched and delivered).
   *
   * <p>Events of one subscription arrive one at a time, in commit order, on a thread of the
   * store's choosing and never on the writer's thread while it holds a lock. A listener that throws
   * is logged and keeps its subscription.
   *
   * @return a handle whose {@code close()} stops delivery; events already handed over may still
   *     arrive. Closing twice is harmless.
   */
  Subscription subscribe(Selector selector, BreadcrumbListener listener);

  /**
   * Removes every expired breadcrumb and its history. No events are delivered for them.
   *
   * @return how many were removed
   */
  int purgeExpired();

  /**
   * The leases that let one worker of many take each piece of work ({@code ToolRunner.listen()}
   * uses them so that each tool request is run by one runner). A store that several processes
   * share returns claims that are atomic across all of them. The default, empty, means this store
   * offers none: runners then share claims within their own JVM only, which is right for a store
   * used by one process.
   */
  default Optional<WorkClaims> claims() {
    return Optional.empty();
  }

  /**
   * Search by meaning ({@link VectorSearch}), where this store has embeddings (the SDK's own stores
   * when built with an {@link EmbeddingProvider}). The default, empty,
   * means it has none: callers then fail with a message that says so (a JavaScript tool's {@code
   * context.api.vectorSearch}, for one) rather than guess with another kind of search.
   */
  default Optional<VectorSearch> vectorSearch() {
    return Optional.empty();
  }
}
