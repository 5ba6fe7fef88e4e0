package dev.rcrt.core.spi;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingPolicy;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.RcrtException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store's embedding queue: writers {@link #offer} the ids of records they wrote (a map insert, no
 * model call on their thread); one daemon thread per indexer reads each record's current version,
 * asks the {@link EmbeddingPolicy} for its text, embeds up to {@link
 * EmbeddingProvider#maxBatchSize()} texts at a time and hands the vectors to the store's {@link
 * Sink}.
 *
 * <p>An id offered again while it waits keeps its place and is embedded once, at its newest version.
 * When the provider fails with a retriable error (or the sink fails), the batch waits and is tried
 * again after 0.5 s, doubling to at most 30 s, with one WARN line when a failure starts and one INFO
 * line when it ends: no write is lost, the index lags ({@link #pending()}). A text the provider
 * refuses ({@code embedding_failed}) is tried alone, and a record whose text is still refused is
 * left out of the index with a WARN line naming it.
 *
 * <p>Thread-safe. {@link #close()} stops the thread; vectors not yet embedded are not.
 */
public final class EmbeddingIndexer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddingIndexer.class);
  private static final int QUERY_CACHE = 256;
  private static final long FIRST_BACKOFF_MS = 500;
  private static final long MAX_BACKOFF_MS = 30_000;
  /** How long {@link #close()} waits for a batch under way: 10 s. */
  public static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(10);

  /** Reads a record's current version when its turn to be embedded comes. */
  public interface Source {
    /** The current, unexpired version of {@code id}, or empty when it is gone. */
    Optional<Breadcrumb> current(String id);
  }

  /** Where vectors go: the store's in-process index, or its table. */
  public interface Sink {
    /**
     * Keeps these record versions' unit vectors, each replacing the record's older one.
     *
     * @throws RcrtException when they could not be kept now; the batch is tried again later
     */
    void accept(List<Embedded> vectors);

    /**
     * {@code breadcrumb}'s current version is not embedded (the policy skips it, or its text was
     * refused): drop any vector an earlier version had.
     */
    void skipped(Breadcrumb breadcrumb);
  }

  /** A record version and its unit vector from {@code model}. */
  public record Embedded(Breadcrumb breadcrumb, float[] vector, String model) {}

  private final String name;
  private final EmbeddingProvider provider;
  private final EmbeddingPolicy policy;
  private final Source source;
  private final Sink sink;
  private final Object lock = new Object();
  /** Waiting ids, oldest first, each with the ticket of its first offer since it was last embedded. */
  private final LinkedHashMap<String, Long> waiting = new LinkedHashMap<>();
  /** The tickets being embedded now. */
  private final List<Long> inFlight = new ArrayList<>();
  private final Map<String, float[]> queries = new LinkedHashMap<>(QUERY_CACHE, 0.75f, true);
  private final Thread worker;
  private long nextTicket;
  private boolean closed;
  private boolean started;
  /** When embedding began to fail ({@link System#nanoTime()}), for the log; 0 while it works. Worker thread only. */
  private long failingSince;
  /** How many batches failed so far; guarded by {@link #lock}, which is notified at each. */
  private long failures;

  /**
   * Starts the indexer's thread, named {@code rcrt-embed-NAME}, embedding as records are offered.
   *
   * @param name the store's name in thread names and log lines
   */
  public EmbeddingIndexer(String name, EmbeddingProvider provider, EmbeddingPolicy policy, Source source, Sink sink) {
    this(name, provider, policy, source, sink, false);
  }

  /**
   * Starts the indexer's thread; when {@code onDemand}, offered records only queue until {@link
   * #start()} (the store's first search by meaning), so that a process that never searches by
   * meaning never runs the model.
   */
  public EmbeddingIndexer(String name, EmbeddingProvider provider, EmbeddingPolicy policy, Source source, Sink sink, boolean onDemand) {
    this.started = !onDemand;
    this.name = Objects.requireNonNull(name, "name");
    this.provider = Objects.requireNonNull(provider, "provider");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.source = Objects.requireNonNull(source, "source");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.worker = DaemonThreads.factory("rcrt-embed-" + name).newThread(this::work);
    worker.start();
  }

  /** The provider records and queries are embedded with. */
  public EmbeddingProvider provider() {
    return provider;
  }

  /** The policy records are embedded by. */
  public EmbeddingPolicy policy() {
    return policy;
  }

  /**
   * Lets an on-demand indexer embed what it queued and what comes; a no-op for one that already
   * embeds.
   *
   * @return true when this call started it
   */
  public boolean start() {
    synchronized (lock) {
      boolean was = started;
      started = true;
      lock.notifyAll();
      return !was;
    }
  }

  /** Queues {@code id} to be embedded at its current version; never blocks on the model. */
  public void offer(String id) {
    synchronized (lock) {
      if (!closed) {
        waiting.putIfAbsent(id, nextTicket++);
        lock.notifyAll();
      }
    }
  }

  /** How many offered records wait to be embedded, those being embedded now included. */
  public long pending() {
    synchronized (lock) {
      return waiting.size() + inFlight.size();
    }
  }

  /**
   * Waits until every id offered before this call was embedded, skipped or found gone.
   *
   * @return false when {@code timeout} passed first
   */
  public boolean awaitIndexed(Duration timeout) throws InterruptedException {
    return awaitIndexed(timeout, false);
  }

  /**
   * {@link #awaitIndexed(Duration)} for a search about to answer: it also gives up, returning
   * false, as soon as a batch fails to embed after the call, rather than waiting out the provider's
   * retries (a search whose provider is down fails on its own query at once).
   */
  public boolean awaitIndexedWhileEmbeddingWorks(Duration timeout) throws InterruptedException {
    return awaitIndexed(timeout, true);
  }

  private boolean awaitIndexed(Duration timeout, boolean untilAFailure) throws InterruptedException {
    start();
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      long target = nextTicket;
      long failed = failures;
      while (oldestWaiting() < target) {
        if (untilAFailure && failures != failed) {
          return false;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  /**
   * {@code text}'s unit vector, embedded on the caller's thread, the text cut to the policy's
   * {@link EmbeddingPolicy#maxChars()} first (a query of a megabyte must not hold the model for
   * seconds); the last 256 queries are cached. The array is shared: do not change it.
   *
   * @throws EmbeddingException when the provider fails
   */
  public float[] embedQuery(String query) {
    String text = query.length() > policy.maxChars() ? query.substring(0, policy.maxChars()) : query;
    synchronized (queries) {
      float[] cached = queries.get(text);
      if (cached != null) {
        return cached;
      }
    }
    float[] vector = Vectors.embed(provider, List.of(text)).get(0);
    synchronized (queries) {
      queries.put(text, vector);
      if (queries.size() > QUERY_CACHE) {
        Iterator<String> eldest = queries.keySet().iterator();
        eldest.next();
        eldest.remove();
      }
    }
    return vector;
  }

  /**
   * Stops embedding and waits, at most {@link #CLOSE_WAIT}, for the batch under way to end, so that
   * what it writes does not meet a store or pool closed after this call. Records still waiting are
   * left to the store's sweep (logged once, not as a failure). Idempotent.
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    DaemonThreads.stop(worker, CLOSE_WAIT);
  }

  /** Called holding the lock: the smallest ticket not yet done, or {@code Long.MAX_VALUE}. */
  private long oldestWaiting() {
    long oldest = Long.MAX_VALUE;
    for (long t : inFlight) {
      oldest = Math.min(oldest, t);
    }
    Iterator<Long> it = waiting.values().iterator();
    return it.hasNext() ? Math.min(oldest, it.next()) : oldest;
  }

  private void work() {
    long backoff = FIRST_BACKOFF_MS;
    while (true) {
      Map<String, Long> batch = new LinkedHashMap<>();
      synchronized (lock) {
        while ((waiting.isEmpty() || !started) && !closed) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            // close() interrupts; the loop condition decides
          }
        }
        if (closed) {
          return;
        }
        for (Iterator<Map.Entry<String, Long>> it = waiting.entrySet().iterator(); it.hasNext() && batch.size() < provider.maxBatchSize(); ) {
          Map.Entry<String, Long> e = it.next();
          batch.put(e.getKey(), e.getValue());
          inFlight.add(e.getValue());
          it.remove();
        }
      }
      boolean done = false;
      try {
        index(new ArrayList<>(batch.keySet()));
        done = true;
        if (failingSince != 0) {
          LOG.info("embedding for store '{}' works again after {} s; {} records wait", name, (System.nanoTime() - failingSince) / 1_000_000_000, pending() - batch.size());
          failingSince = 0;
        }
        backoff = FIRST_BACKOFF_MS;
      } catch (RuntimeException | LinkageError e) {
        boolean closing;
        synchronized (lock) {
          closing = closed;
        }
        if (closing) {
          LOG.info("embedding for store '{}' stopped with the store; {} records are left to the store's sweep", name, pending());
        } else if (failingSince == 0) {
          failingSince = System.nanoTime();
          LOG.warn("embedding for store '{}' failed; {} records wait and will be indexed when it works again: {}", name, pending(), e.toString());
        }
      } finally {
        synchronized (lock) {
          inFlight.removeAll(batch.values());
          if (!done) {
            failures++;
            LinkedHashMap<String, Long> again = new LinkedHashMap<>(batch);
            waiting.forEach(again::putIfAbsent);
            waiting.clear();
            waiting.putAll(again);
          }
          lock.notifyAll();
        }
      }
      if (!done) {
        synchronized (lock) {
          try {
            lock.wait(backoff);
          } catch (InterruptedException e) {
            // close() interrupts
          }
        }
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Embeds and sinks the current versions of {@code ids}; a refused text is tried alone, then left out. */
  private void index(List<String> ids) {
    List<Breadcrumb> records = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (String id : ids) {
      Optional<Breadcrumb> current = source.current(id);
      if (current.isEmpty()) {
        continue;
      }
      Optional<String> text = policy.textOf(current.get());
      if (text.isPresent()) {
        records.add(current.get());
        texts.add(text.get());
      } else {
        sink.skipped(current.get());
      }
    }
    if (records.isEmpty()) {
      return;
    }
    List<float[]> vectors;
    try {
      vectors = Vectors.embed(provider, texts);
    } catch (RuntimeException thrown) {
      // a provider's own exception type (a bug, or a text that breaks it) counts as a refusal, so one text cannot stop the queue
      EmbeddingException e =
          thrown instanceof EmbeddingException ee ? ee : new EmbeddingException(EmbeddingErrorCode.EMBEDDING_FAILED, thrown.toString(), thrown);
      if (e.isRetriable()) {
        throw e;
      }
      if (records.size() > 1) {
        for (Breadcrumb b : records) {
          index(List.of(b.id()));
        }
        return;
      }
      LOG.warn("breadcrumb '{}' is not indexed for search by meaning: model '{}' refused its text: {}", records.get(0).id(), provider.model(), e.getMessage());
      sink.skipped(records.get(0));
      return;
    }
    List<Embedded> out = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      out.add(new Embedded(records.get(i), vectors.get(i), provider.model()));
    }
    sink.accept(out);
  }
}
