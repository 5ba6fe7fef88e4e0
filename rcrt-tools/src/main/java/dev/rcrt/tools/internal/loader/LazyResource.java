package dev.rcrt.tools.internal.loader;

import dev.rcrt.tools.ToolException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A resource a loader shares between its tools (the GraalJS engine, the Docker client), created on
 * first use and closed with the loader. A library missing from the classpath is reported as {@code
 * tool_unsupported} with {@code missing}, instead of a {@link LinkageError}. Thread-safe.
 */
public final class LazyResource<T extends AutoCloseable> implements AutoCloseable {
  private final Supplier<T> create;
  private final String missing;
  private volatile @Nullable T value;

  /**
   * @param create makes the resource; may throw {@link ToolException}
   * @param missing what to tell the user when its library is not on the classpath
   */
  public LazyResource(Supplier<T> create, String missing) {
    this.create = create;
    this.missing = missing;
  }

  public T get() {
    T v = value;
    if (v == null) {
      synchronized (this) {
        v = value;
        if (v == null) {
          try {
            v = create.get();
          } catch (LinkageError e) {
            throw new ToolException("tool_unsupported", missing + ": " + e);
          }
          value = v;
        }
      }
    }
    return v;
  }

  @Override
  public synchronized void close() {
    T v = value;
    value = null;
    if (v != null) {
      try {
        v.close();
      } catch (Exception e) {
        LoggerFactory.getLogger(LazyResource.class).debug("closing {} failed", v, e);
      }
    }
  }
}
