package dev.rcrt.benchmarks;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.MatchOp;
import dev.rcrt.core.Selector;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The stores at 100,000 breadcrumbs, the in-memory one and PostgreSQL in the same run:
 * create, get, and selector searches (tags, schema, {@code context_match}). PostgreSQL 17 from the
 * tests' binaries artifact on loopback, {@code fsync=off} (see docs/benchmarks.md), or the server
 * named by {@code RCRT_TEST_POSTGRES_URL}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StoreBenchmark {
  static final int SIZE = 100_000;

  @Param({"memory", "postgres"})
  String kind;

  BreadcrumbStore store;
  String someId;
  int next = SIZE;
  final Selector byTag = Selector.allTags("session:s42");
  final Selector byTagAndMatch =
      Selector.schema("note.v3").withAllTags("session:s43").withMatch(ContextMatch.of("$.priority", MatchOp.GTE, 3));
  final Selector bySchemaAndEq = Selector.schema("note.v7").withMatch(ContextMatch.of("$.priority", MatchOp.EQ, 2));

  @Setup(Level.Trial)
  public void fill() {
    store = "memory".equals(kind)
        ? InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build()
        : PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(TestPostgres.freshSchema()).build();
    Fixtures.fillStore(store, SIZE);
    someId = store.search(Selector.allTags("bucket:500"), 1, 0).get(0).id();
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    if (store instanceof AutoCloseable c) {
      c.close();
    }
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

  /** Schema + tag narrow to ~100 candidates, then a context_match (gte) filters them. */
  @Benchmark
  public List<Breadcrumb> searchByTagWithContextMatch() {
    return store.search(byTagAndMatch, 10, 0);
  }

  /** Schema narrows to 10,000 candidates; an eq context_match (answered by the JSONB index in PostgreSQL) keeps one in five. */
  @Benchmark
  public List<Breadcrumb> searchBySchemaWithContextMatch() {
    return store.search(bySchemaAndEq, 10, 0);
  }
}
