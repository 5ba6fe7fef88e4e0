package dev.rcrt.benchmarks;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.MatchOp;
import dev.rcrt.core.Selector;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The in-memory store at 100,000 breadcrumbs. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StoreBenchmark {
  static final int SIZE = 100_000;

  InMemoryBreadcrumbStore store;
  String someId;
  int next = SIZE;
  final Selector byTag = Selector.allTags("session:s42");
  final Selector byTagAndMatch =
      Selector.schema("note.v3").withAllTags("session:s43").withMatch(ContextMatch.of("$.priority", MatchOp.GTE, 3));
  final Selector bySchemaAndMatch = Selector.schema("note.v7").withMatch(ContextMatch.of("$.priority", MatchOp.EQ, 2));

  @Setup(Level.Trial)
  public void fill() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    Fixtures.fillStore(store, SIZE);
    someId = store.search(Selector.allTags("bucket:500"), 1, 0).get(0).id();
  }

  @Benchmark
  public Breadcrumb create() {
    return store.create(Fixtures.note(next++));
  }

  @Benchmark
  public Breadcrumb get() {
    return store.get(someId).orElseThrow();
  }

  /** Newest 10 of the ~1,000 breadcrumbs of one session tag. */
  @Benchmark
  public List<Breadcrumb> searchByTag() {
    return store.search(byTag, 10, 0);
  }

  /** Schema + tag narrow to ~100 candidates, then a context_match filters them. */
  @Benchmark
  public List<Breadcrumb> searchByTagWithContextMatch() {
    return store.search(byTagAndMatch, 10, 0);
  }

  /** Schema narrows to 10,000 candidates; a context_match keeps one in five. */
  @Benchmark
  public List<Breadcrumb> searchBySchemaWithContextMatch() {
    return store.search(bySchemaAndMatch, 10, 0);
  }
}
