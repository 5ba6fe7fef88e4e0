package dev.rcrt.postgres.internal;

import dev.rcrt.core.Selector;
import dev.rcrt.core.spi.VectorIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.codecs.perfield.PerFieldKnnVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.VectorUtil;
import org.jspecify.annotations.Nullable;

/**
 * A process's {@link VectorIndex} in Lucene, in memory ({@code ByteBuffersDirectory}): one document
 * per record (id, version, schema, tags, unit vector). Searched exactly (every vector passing the
 * filter compared, Lucene's {@code VectorUtil.dotProduct}) while the index holds fewer than {@code
 * exactBelow} vectors, and through Lucene's HNSW graph ({@code KnnFloatVectorQuery}, M 16, beam
 * width 100, the filter applied during the graph search) from then on. Vectors of up to 4,096
 * dimensions are accepted (Lucene's default limit is 1,024). Changes become searchable at the next
 * search after them (a near-real-time reopen). Thread-safe.
 */
public final class LuceneVectorIndex implements VectorIndex, AutoCloseable {
  private static final String ID = "id";
  private static final String VERSION = "version";
  private static final String SCHEMA = "schema";
  private static final String TAG = "tag";
  private static final String VECTOR = "vector";
  private static final int MAX_DIMENSIONS = 4096;
  private static final double RAM_BUFFER_MB = 512;
  /** The graph search explores at least this many candidates (Lucene's {@code k}), whatever {@code k} is asked. */
  static final int MIN_CANDIDATES = 100;

  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final int exactBelow;
  private final int candidates;
  private final Map<String, Long> versions = new ConcurrentHashMap<>();
  private final AtomicBoolean changed = new AtomicBoolean();

  /** @param exactBelow below this many vectors, searches compare every one */
  public LuceneVectorIndex(int exactBelow) {
    this(exactBelow, MIN_CANDIDATES);
  }

  /** @param candidates how many candidates a graph search explores at least */
  public LuceneVectorIndex(int exactBelow, int candidates) {
    this.exactBelow = exactBelow;
    this.candidates = candidates;
    try {
      // a large buffer: a rebuild of 100,000 vectors stays one segment instead of flushing and merging graphs
      IndexWriterConfig config = new IndexWriterConfig().setCodec(new WideVectors(Codec.getDefault())).setRAMBufferSizeMB(RAM_BUFFER_MB);
      this.writer = new IndexWriter(new ByteBuffersDirectory(), config);
      this.searchers = new SearcherManager(writer, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void put(Entry entry) {
    Long held = versions.get(entry.id());
    if (held != null && held > entry.version()) {
      return;
    }
    Document doc = new Document();
    doc.add(new StringField(ID, entry.id(), Field.Store.YES));
    doc.add(new StoredField(VERSION, entry.version()));
    if (entry.schemaName() != null) {
      doc.add(new StringField(SCHEMA, entry.schemaName(), Field.Store.NO));
    }
    for (String tag : entry.tags()) {
      doc.add(new StringField(TAG, tag, Field.Store.NO));
    }
    doc.add(new KnnFloatVectorField(VECTOR, entry.vector(), VectorSimilarityFunction.DOT_PRODUCT));
    try {
      writer.updateDocument(new Term(ID, entry.id()), doc);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    versions.put(entry.id(), entry.version());
    changed.set(true);
  }

  @Override
  public void remove(String id) {
    if (versions.remove(id) == null) {
      return;
    }
    try {
      writer.deleteDocuments(new Term(ID, id));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    changed.set(true);
  }

  /** Removes {@code id}'s vector if it came from a version before {@code version}. */
  public void removeBefore(String id, long version) {
    Long held = versions.get(id);
    if (held != null && held < version) {
      remove(id);
    }
  }

  @Override
  public int size() {
    return versions.size();
  }

  @Override
  public List<Hit> nearest(float[] query, int k, Selector filter) {
    return search(query, k, filter, size() < exactBelow);
  }

  /** Like {@link #nearest}, exactly ({@code exact}) or through the HNSW graph. */
  public List<Hit> search(float[] query, int k, Selector filter, boolean exact) {
    try {
      if (changed.getAndSet(false)) {
        searchers.maybeRefreshBlocking();
      }
      IndexSearcher searcher = searchers.acquire();
      try {
        Query only = filterQuery(filter);
        return exact ? exact(searcher, query, k, only) : graph(searcher, query, k, only);
      } finally {
        searchers.release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<Hit> graph(IndexSearcher searcher, float[] query, int k, @Nullable Query filter) throws IOException {
    TopDocs top = searcher.search(new KnnFloatVectorQuery(VECTOR, query, Math.max(k, candidates), filter), k);
    List<Hit> out = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc d : top.scoreDocs) {
      // Lucene scores a dot product d as (1 + d) / 2
      out.add(hit(searcher, d.doc, 2 * d.score - 1));
    }
    return out;
  }

  private static List<Hit> exact(IndexSearcher searcher, float[] query, int k, @Nullable Query filter) throws IOException {
    record Found(int doc, float score) {}
    PriorityQueue<Found> best = new PriorityQueue<>(Math.max(1, k), Comparator.comparingDouble(Found::score));
    Weight only = filter == null ? null : searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1);
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(VECTOR);
      if (values == null) {
        continue;
      }
      DocIdSetIterator allowed = null;
      if (only != null) {
        Scorer scorer = only.scorer(leaf);
        if (scorer == null) {
          continue;
        }
        allowed = scorer.iterator();
      }
      Bits live = leaf.reader().getLiveDocs();
      for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        if (allowed != null) {
          if (allowed.docID() < doc) {
            allowed.advance(doc);
          }
          if (allowed.docID() != doc) {
            continue;
          }
        }
        float score = VectorUtil.dotProduct(query, values.vectorValue());
        if (best.size() < k) {
          best.add(new Found(leaf.docBase + doc, score));
        } else if (score > best.peek().score()) {
          best.poll();
          best.add(new Found(leaf.docBase + doc, score));
        }
      }
    }
    List<Found> sorted = new ArrayList<>(best);
    sorted.sort(Comparator.comparingDouble((Found f) -> -f.score()));
    List<Hit> out = new ArrayList<>(sorted.size());
    for (Found f : sorted) {
      out.add(hit(searcher, f.doc(), f.score()));
    }
    return out;
  }

  private static Hit hit(IndexSearcher searcher, int doc, float score) throws IOException {
    Document stored = searcher.storedFields().document(doc);
    return new Hit(stored.get(ID), stored.getField(VERSION).numericValue().longValue(), score);
  }

  private static @Nullable Query filterQuery(Selector filter) {
    if (filter.schemaName() == null && filter.allTags().isEmpty() && filter.anyTags().isEmpty()) {
      return null;
    }
    BooleanQuery.Builder q = new BooleanQuery.Builder();
    if (filter.schemaName() != null) {
      q.add(new TermQuery(new Term(SCHEMA, filter.schemaName())), BooleanClause.Occur.FILTER);
    }
    for (String tag : filter.allTags()) {
      q.add(new TermQuery(new Term(TAG, tag)), BooleanClause.Occur.FILTER);
    }
    if (!filter.anyTags().isEmpty()) {
      BooleanQuery.Builder any = new BooleanQuery.Builder();
      filter.anyTags().forEach(tag -> any.add(new TermQuery(new Term(TAG, tag)), BooleanClause.Occur.SHOULD));
      q.add(any.setMinimumNumberShouldMatch(1).build(), BooleanClause.Occur.FILTER);
    }
    return q.build();
  }

  @Override
  public void close() {
    try {
      searchers.close();
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Lucene's default codec with its HNSW vector format allowing {@value #MAX_DIMENSIONS}
   * dimensions. The codec and format keep their names, so segments are read back by Lucene's own
   * (the limit is checked only when writing).
   */
  private static final class WideVectors extends FilterCodec {
    private final KnnVectorsFormat vectors = new PerFieldKnnVectorsFormat() {
      private final KnnVectorsFormat hnsw = new Wide(new Lucene99HnswVectorsFormat());

      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return hnsw;
      }
    };

    WideVectors(Codec codec) {
      super(codec.getName(), codec);
    }

    @Override
    public KnnVectorsFormat knnVectorsFormat() {
      return vectors;
    }
  }

  private static final class Wide extends KnnVectorsFormat {
    private final KnnVectorsFormat delegate;

    Wide(KnnVectorsFormat delegate) {
      super(delegate.getName());
      this.delegate = delegate;
    }

    @Override
    public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
      return delegate.fieldsWriter(state);
    }

    @Override
    public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
      return delegate.fieldsReader(state);
    }

    @Override
    public int getMaxDimensions(String fieldName) {
      return MAX_DIMENSIONS;
    }
  }
}
