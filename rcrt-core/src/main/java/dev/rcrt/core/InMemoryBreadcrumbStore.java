package dev.rcrt.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.internal.ContentDigest;
import dev.rcrt.core.internal.OrderedSubscription;
import dev.rcrt.core.internal.RecencyIndex;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The reference {@link BreadcrumbStore}: everything in memory, safe for any number of threads.
 *
 * <p>Writes take an exclusive lock and are atomic; reads share a lock. Records are indexed by tag
 * and schema name, so a search walks the smallest matching index rather than every record. Context
 * trees are copied on write, so a caller's later changes to its own tree never reach the store.
 *
 * <p>Subscribers are called on the event executor (by default a pool of daemon threads named
 * {@code rcrt-store-events}), one event at a time per subscription, in commit order. Pass {@code
 * Runnable::run} as the executor to deliver on the writer's thread after its write, for example in
 * tests.
 */
public final class InMemoryBreadcrumbStore implements BreadcrumbStore {
  private final Clock clock;
  private final Executor eventExecutor;
  private final Supplier<String> ids;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Map<String, Entry> byId = new HashMap<>();
  private final RecencyIndex index = new RecencyIndex();
  private final List<OrderedSubscription> subscriptions = new CopyOnWriteArrayList<>();
  private long nextSeq = 1;

  private static final class Entry {
    final List<Breadcrumb> versions = new ArrayList<>();
    long seq;

    Breadcrumb current() {
      return versions.get(versions.size() - 1);
    }
  }

  /** A store on the system UTC clock with the default event threads. */
  public InMemoryBreadcrumbStore() {
    this(builder());
  }

  private InMemoryBreadcrumbStore(Builder builder) {
    this.clock = builder.clock;
    this.eventExecutor = builder.eventExecutor != null ? builder.eventExecutor : defaultEvents();
    this.ids = builder.ids;
  }

  /** Starts a builder for a store with a custom clock, event executor or id generator. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create) {
    Objects.requireNonNull(create, "create");
    JsonNode context = create.context().deepCopy();
    List<OrderedSubscription> notify;
    Breadcrumb stored;
    lock.writeLock().lock();
    try {
      String id = create.id() != null ? create.id() : ids.get();
      Entry existing = byId.get(id);
      if (existing != null) {
        throw new ConflictException(id, 0, existing.current().version());
      }
      Instant now = clock.instant();
      ContentDigest digest = ContentDigest.of(context);
      stored =
          new Breadcrumb(
              id, create.title(), create.description(), create.semanticVersion(), context,
              create.tags(), create.schemaName(), copy(create.llmHints()), create.visibility(),
              create.sensitivity(), 1, digest.checksum(), create.ttl(), create.ttlType(),
              copy(create.ttlConfig()), now, now, create.createdBy(), create.createdBy(),
              digest.sizeBytes());
      Entry entry = new Entry();
      entry.versions.add(stored);
      entry.seq = nextSeq++;
      byId.put(id, entry);
      index.add(entry.seq, stored);
      notify = queue(BreadcrumbEvent.Type.CREATED, stored);
    } finally {
      lock.writeLock().unlock();
    }
    notify.forEach(OrderedSubscription::deliver);
    return stored;
  }

  @Override
  public Optional<Breadcrumb> get(String id) {
    Objects.requireNonNull(id, "id");
    lock.readLock().lock();
    try {
      Entry entry = byId.get(id);
      return entry == null ? Optional.empty() : Optional.of(entry.current());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(update, "update");
    JsonNode newContext = update.context() == null ? null : update.context().deepCopy();
    List<OrderedSubscription> notify;
    Breadcrumb stored;
    lock.writeLock().lock();
    try {
      Entry entry = byId.get(id);
      if (entry == null) {
        throw new NotFoundException("no breadcrumb with id '" + id + "' to update");
      }
      Breadcrumb old = entry.current();
      if (old.version() != expectedVersion) {
        throw new ConflictException(id, expectedVersion, old.version());
      }
      JsonNode context = newContext != null ? newContext : old.context();
      ContentDigest digest =
          newContext != null
              ? ContentDigest.of(context)
              : new ContentDigest(old.checksum(), old.sizeBytes());
      stored =
          new Breadcrumb(
              id,
              or(update.title(), old.title()),
              or(update.description(), old.description()),
              or(update.semanticVersion(), old.semanticVersion()),
              context,
              or(update.tags(), old.tags()),
              old.schemaName(),
              update.llmHints() != null ? copy(update.llmHints()) : old.llmHints(),
              or(update.visibility(), old.visibility()),
              or(update.sensitivity(), old.sensitivity()),
              old.version() + 1,
              digest.checksum(),
              old.ttl(),
              old.ttlType(),
              old.ttlConfig(),
              old.createdAt(),
              clock.instant(),
              old.createdBy(),
              update.updatedBy(),
              digest.sizeBytes());
      index.remove(entry.seq, old);
      entry.seq = nextSeq++;
      entry.versions.add(stored);
      index.add(entry.seq, stored);
      notify = queue(BreadcrumbEvent.Type.UPDATED, stored);
    } finally {
      lock.writeLock().unlock();
    }
    notify.forEach(OrderedSubscription::deliver);
    return stored;
  }

  @Override
  public boolean delete(String id) {
    Objects.requireNonNull(id, "id");
    List<OrderedSubscription> notify;
    lock.writeLock().lock();
    try {
      Entry entry = byId.remove(id);
      if (entry == null) {
        return false;
      }
      index.remove(entry.seq, entry.current());
      notify = queue(BreadcrumbEvent.Type.DELETED, entry.current());
    } finally {
      lock.writeLock().unlock();
    }
    notify.forEach(OrderedSubscription::deliver);
    return true;
  }

  @Override
  public List<Breadcrumb> search(Selector selector, int limit, int offset) {
    Objects.requireNonNull(selector, "selector");
    if (limit < 1) {
      throw new IllegalArgumentException("limit < 1: " + limit);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("offset < 0: " + offset);
    }
    List<Breadcrumb> found = new ArrayList<>(Math.min(limit, 64));
    int skip = offset;
    lock.readLock().lock();
    try {
      for (long seq : index.candidates(selector)) {
        Breadcrumb candidate = index.at(seq);
        if (selector.matches(candidate)) {
          if (skip > 0) {
            skip--;
          } else {
            found.add(candidate);
            if (found.size() == limit) {
              break;
            }
          }
        }
      }
    } finally {
      lock.readLock().unlock();
    }
    return List.copyOf(found);
  }

  @Override
  public List<Breadcrumb> history(String id) {
    Objects.requireNonNull(id, "id");
    lock.readLock().lock();
    try {
      Entry entry = byId.get(id);
      if (entry == null) {
        throw new NotFoundException("no breadcrumb with id '" + id + "'");
      }
      return List.copyOf(entry.versions);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(listener, "listener");
    OrderedSubscription subscription =
        new OrderedSubscription(selector, listener, eventExecutor, subscriptions::remove);
    subscriptions.add(subscription);
    return subscription;
  }

  /** The number of breadcrumbs currently stored. */
  public int size() {
    lock.readLock().lock();
    try {
      return byId.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Called under the write lock: queues the event on every matching subscription. */
  private List<OrderedSubscription> queue(BreadcrumbEvent.Type type, Breadcrumb breadcrumb) {
    List<OrderedSubscription> matched = new ArrayList<>(2);
    for (OrderedSubscription subscription : subscriptions) {
      if (subscription.offer(type, breadcrumb)) {
        matched.add(subscription);
      }
    }
    return matched;
  }

  private static <T> T or(@Nullable T value, T fallback) {
    return value != null ? value : fallback;
  }

  private static @Nullable JsonNode copy(@Nullable JsonNode node) {
    return node == null ? null : node.deepCopy();
  }

  private static ExecutorService defaultEvents() {
    AtomicInteger n = new AtomicInteger();
    return Executors.newCachedThreadPool(
        r -> {
          Thread t = new Thread(r, "rcrt-store-events-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** Builder for {@link InMemoryBreadcrumbStore}. Not thread-safe. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private @Nullable Executor eventExecutor;
    private Supplier<String> ids = () -> UUID.randomUUID().toString();

    private Builder() {}

    /** The clock for {@code created_at}/{@code updated_at}; default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Where subscribers are called; default a pool of daemon threads. {@code Runnable::run}
     * delivers on the writing thread after the write commits.
     */
    public Builder eventExecutor(Executor executor) {
      this.eventExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** Generates ids for payloads that name none; default random UUIDs. Must be unique. */
    public Builder ids(Supplier<String> ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    public InMemoryBreadcrumbStore build() {
      return new InMemoryBreadcrumbStore(this);
    }
  }
}
