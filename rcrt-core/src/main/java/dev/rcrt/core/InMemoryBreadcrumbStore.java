package dev.rcrt.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.internal.ExactVectorIndex;
import dev.rcrt.core.internal.MemoryClaims;
import dev.rcrt.core.internal.RecencyIndex;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.EmbeddingIndexer;
import dev.rcrt.core.spi.Expiry;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.core.spi.IndexedVectorSearch;
import dev.rcrt.core.spi.OrderedSubscription;
import dev.rcrt.core.spi.Records;
import dev.rcrt.core.spi.VectorIndex;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>TTLs are judged on the builder's clock (tests pass a fixed one). Contexts and hints may nest at
 * most 64 levels. With {@link Builder#validateSchemas(boolean)}, a record whose schema has a {@code
 * schema.def.v1} definition must conform to it on create and update.
 *
 * <p>Subscribers are called on the event executor (by default a pool of daemon threads named
 * {@code rcrt-store-events}), one event at a time per subscription, in commit order. Pass {@code
 * Runnable::run} as the executor to deliver on the writer's thread after its write, for example in
 * tests.
 *
 * <p>With {@link Builder#embeddings}, the store answers {@link #vectorSearch()}: records are
 * embedded by the policy on one background thread after they are written (the writer only queues
 * the id), kept as unit vectors beside the records and searched exactly (every vector passing the
 * filter's schema and tags is compared, from one contiguous array: about 16 ms for 100,000
 * vectors of 384 dimensions on one core of the benchmark machine, see {@code docs/benchmarks.md};
 * memory about 1.6 KB per vector). An update or delete drops
 * the record's vector at once; an updated record is found again once its new version is embedded.
 */
public final class InMemoryBreadcrumbStore implements BreadcrumbStore {
  private final Clock clock;
  private final Executor eventExecutor;
  private final Supplier<String> ids;
  private final @Nullable SchemaDefinitions definitions;
  private final Map<String, String> idempotencyKeys = new HashMap<>();
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Map<String, Entry> byId = new HashMap<>();
  private final RecencyIndex index = new RecencyIndex();
  private final List<OrderedSubscription> subscriptions = new CopyOnWriteArrayList<>();
  private final MemoryClaims claims;
  private final @Nullable ExactVectorIndex vectors;
  private final @Nullable EmbeddingIndexer indexer;
  private final @Nullable VectorSearch vectorSearch;
  private long nextSeq = 1;

  private static final class Entry {
    final List<Breadcrumb> versions = new ArrayList<>();
    final AtomicLong reads = new AtomicLong();
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
    this.definitions = builder.validateSchemas ? SchemaDefinitions.of(this) : null;
    this.claims = new MemoryClaims(clock);
    if (builder.embeddings != null) {
      ExactVectorIndex index = new ExactVectorIndex();
      this.vectors = index;
      this.indexer = new EmbeddingIndexer("memory", builder.embeddings, builder.policy, this::visible, new VectorSink(index), builder.onDemand);
      this.vectorSearch = new IndexedVectorSearch(indexer, index, this::currentOf);
    } else {
      this.vectors = null;
      this.indexer = null;
      this.vectorSearch = null;
    }
  }

  /** Starts a builder for a store with a custom clock, event executor or id generator. */
  public static Builder builder() {
    return new Builder();
  }

  /** The fence is checked and the record written while the claims' monitor is held: a takeover waits for the write. */
  @Override
  public Breadcrumb create(BreadcrumbCreate create, WorkClaims.Claim fence) {
    Objects.requireNonNull(fence, "fence");
    synchronized (claims) {
      if (!claims.isCurrent(fence)) {
        throw new ClaimLostException(fence.key(), "taken over, completed or run out in the store's claims");
      }
      return create(create);
    }
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create) {
    Objects.requireNonNull(create, "create");
    Records.check(create);
    conform(create.schemaName(), create.context(), "breadcrumb '" + create.title() + "'");
    List<OrderedSubscription> notify;
    Breadcrumb stored;
    lock.writeLock().lock();
    try {
      if (create.idempotencyKey() != null) {
        Entry original = byId.get(idempotencyKeys.getOrDefault(create.idempotencyKey(), ""));
        if (original != null) {
          return original.current();
        }
      }
      String id = create.id() != null ? create.id() : ids.get();
      Entry existing = byId.get(id);
      if (existing != null) {
        throw new ConflictException(id, 0, existing.current().version());
      }
      stored = Records.created(create, id, clock.instant());
      Entry entry = new Entry();
      entry.versions.add(stored);
      entry.seq = nextSeq++;
      byId.put(id, entry);
      index.add(entry.seq, stored);
      if (create.idempotencyKey() != null) {
        idempotencyKeys.put(create.idempotencyKey(), id);
      }
      notify = queue(BreadcrumbEvent.Type.CREATED, entry);
    } finally {
      lock.writeLock().unlock();
    }
    if (indexer != null) {
      indexer.offer(stored.id());
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
      if (entry == null) {
        return Optional.empty();
      }
      Breadcrumb current = entry.current();
      Instant now = clock.instant();
      while (true) {
        long reads = entry.reads.get();
        if (Expiry.expired(current, reads, now)) {
          return Optional.empty();
        }
        if (!Expiry.countsReads(current) || entry.reads.compareAndSet(reads, reads + 1)) {
          return Optional.of(current);
        }
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(update, "update");
    Records.check(id, update);
    if (update.context() != null && definitions != null) {
      conform(visible(id).map(Breadcrumb::schemaName).orElse(null), update.context(), "breadcrumb '" + id + "'");
    }
    List<OrderedSubscription> notify;
    Breadcrumb stored;
    lock.writeLock().lock();
    try {
      Entry entry = byId.get(id);
      if (entry == null || isExpired(entry)) {
        throw new NotFoundException("no breadcrumb with id '" + id + "' to update");
      }
      Breadcrumb old = entry.current();
      if (old.version() != expectedVersion) {
        throw new ConflictException(id, expectedVersion, old.version());
      }
      stored = Records.updated(old, update, clock.instant());
      index.remove(entry.seq, old);
      entry.seq = nextSeq++;
      entry.versions.add(stored);
      index.add(entry.seq, stored);
      if (vectors != null) {
        vectors.remove(id);
      }
      notify = queue(BreadcrumbEvent.Type.UPDATED, entry);
    } finally {
      lock.writeLock().unlock();
    }
    if (indexer != null) {
      indexer.offer(id);
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
      idempotencyKeys.values().remove(id);
      if (vectors != null) {
        vectors.remove(id);
      }
      notify = queue(BreadcrumbEvent.Type.DELETED, entry);
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
        if (candidate != null && selector.matches(candidate) && !isExpired(candidate)) {
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
      if (entry == null || isExpired(entry)) {
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

  /** Claims kept in this store's memory, on its clock. */
  @Override
  public Optional<WorkClaims> claims() {
    return Optional.of(claims);
  }

  /**
   * Exact search by meaning over this store's vectors, when it was built with {@link
   * Builder#embeddings}; see the class comment.
   */
  @Override
  public Optional<VectorSearch> vectorSearch() {
    return Optional.ofNullable(vectorSearch);
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

  @Override
  public int purgeExpired() {
    lock.writeLock().lock();
    try {
      List<String> expired = new ArrayList<>();
      for (Map.Entry<String, Entry> e : byId.entrySet()) {
        if (isExpired(e.getValue())) {
          expired.add(e.getKey());
        }
      }
      for (String id : expired) {
        Entry entry = byId.remove(id);
        index.remove(entry.seq, entry.current());
        idempotencyKeys.values().remove(id);
        if (vectors != null) {
          vectors.remove(id);
        }
      }
      return expired.size();
    } finally {
      lock.writeLock().unlock();
    }
  }

  private boolean isExpired(Entry entry) {
    return Expiry.expired(entry.current(), entry.reads.get(), clock.instant());
  }

  /** Called under a lock: whether the indexed record has expired. Records without a TTL are never looked up. */
  private boolean isExpired(Breadcrumb b) {
    if (b.ttl() == null && (b.ttlType() == null || b.ttlType() == TtlType.NEVER)) {
      return false;
    }
    Entry entry = byId.get(b.id());
    return entry == null || isExpired(entry);
  }

  /** The current record, if present and not expired, without counting a read. */
  private Optional<Breadcrumb> visible(String id) {
    lock.readLock().lock();
    try {
      Entry entry = byId.get(id);
      return entry == null || isExpired(entry) ? Optional.empty() : Optional.of(entry.current());
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The current, unexpired records among {@code ids}, without counting reads. */
  private Map<String, Breadcrumb> currentOf(Collection<String> ids) {
    Map<String, Breadcrumb> out = new HashMap<>();
    lock.readLock().lock();
    try {
      for (String id : ids) {
        Entry entry = byId.get(id);
        if (entry != null && !isExpired(entry)) {
          out.put(id, entry.current());
        }
      }
    } finally {
      lock.readLock().unlock();
    }
    return out;
  }

  /** Keeps vectors of versions that are still current: checked under the read lock, which updates and deletes exclude. */
  private final class VectorSink implements EmbeddingIndexer.Sink {
    private final ExactVectorIndex index;

    VectorSink(ExactVectorIndex index) {
      this.index = index;
    }

    @Override
    public void accept(List<EmbeddingIndexer.Embedded> embedded) {
      lock.readLock().lock();
      try {
        for (EmbeddingIndexer.Embedded e : embedded) {
          Breadcrumb b = e.breadcrumb();
          Entry entry = byId.get(b.id());
          if (entry != null && entry.current().version() == b.version()) {
            index.put(new VectorIndex.Entry(b.id(), b.version(), b.schemaName(), new java.util.HashSet<>(b.tags()), e.vector()));
          }
        }
      } finally {
        lock.readLock().unlock();
      }
    }

    @Override
    public void skipped(Breadcrumb breadcrumb) {
      index.remove(breadcrumb.id());
    }
  }

  /** With schema validation on, refuses a context that breaks its schema's definition. */
  private void conform(@Nullable String schemaName, JsonNode context, String where) {
    if (definitions == null) {
      return;
    }
    List<String> violations = definitions.violations(schemaName, context);
    if (!violations.isEmpty()) {
      throw new ValidationException(
          where + " (" + schemaName + ") does not match its schema definition: " + String.join("; ", violations),
          violations,
          null);
    }
  }

  /** Called under the write lock: queues the event on every matching subscription, unless the record has expired. */
  private List<OrderedSubscription> queue(BreadcrumbEvent.Type type, Entry entry) {
    Breadcrumb breadcrumb = entry.current();
    if (type != BreadcrumbEvent.Type.DELETED && isExpired(entry)) {
      return List.of();
    }
    List<OrderedSubscription> matched = new ArrayList<>(2);
    for (OrderedSubscription subscription : subscriptions) {
      if (subscription.offer(type, breadcrumb)) {
        matched.add(subscription);
      }
    }
    return matched;
  }

  private static ExecutorService defaultEvents() {
    return DaemonThreads.pool(0, "rcrt-store-events");
  }

  /** Builder for {@link InMemoryBreadcrumbStore}. Not thread-safe. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private @Nullable Executor eventExecutor;
    private Supplier<String> ids = Ids::random;
    private boolean validateSchemas;
    private @Nullable EmbeddingProvider embeddings;
    private EmbeddingPolicy policy = EmbeddingPolicy.rcrt();
    private boolean onDemand;

    private Builder() {}

    /**
     * With {@link #embeddings}: embed nothing until the first search by meaning, which then waits
     * for the records written so far (at most 2 minutes) before it answers; later writes are
     * embedded as they come. For a short-lived store (a command-line run) that may never search by
     * meaning and should not load a model for nothing. Default off.
     */
    public Builder embedOnDemand(boolean onDemand) {
      this.onDemand = onDemand;
      return this;
    }

    /**
     * Embed records with {@code provider} by RCRT's {@link EmbeddingPolicy#rcrt() policy}, so that
     * the store answers {@link InMemoryBreadcrumbStore#vectorSearch()}; default none.
     */
    public Builder embeddings(EmbeddingProvider provider) {
      return embeddings(provider, EmbeddingPolicy.rcrt());
    }

    /** Embed records with {@code provider} by {@code policy}; see {@link #embeddings(EmbeddingProvider)}. */
    public Builder embeddings(EmbeddingProvider provider, EmbeddingPolicy policy) {
      this.embeddings = Objects.requireNonNull(provider, "provider");
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Refuse, with a {@link ValidationException} naming each field, any create or update whose
     * context breaks the {@code schema.def.v1} definition of its schema; default off.
     */
    public Builder validateSchemas(boolean validate) {
      this.validateSchemas = validate;
      return this;
    }

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

    /** Generates ids for payloads that name none; default random (version 4) UUIDs. Must be unique. */
    public Builder ids(Supplier<String> ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    /** The store, with what was set. */
    public InMemoryBreadcrumbStore build() {
      return new InMemoryBreadcrumbStore(this);
    }
  }
}
