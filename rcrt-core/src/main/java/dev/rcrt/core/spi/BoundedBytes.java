package dev.rcrt.core.spi;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/** A stream read whole, within a size cap: a request or response body that may not fill the heap. */
public final class BoundedBytes {
  private BoundedBytes() {}

  /**
   * Reads {@code in} to its end, on the calling thread (which the stream may block); the stream is
   * not closed.
   *
   * @return the bytes, or null as soon as they pass {@code max} (nothing more is read)
   * @throws IOException as the stream throws it
   */
  public static byte @Nullable [] readAll(InputStream in, long max) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    for (int n; (n = in.read(chunk)) > 0; ) {
      if (bytes.size() + (long) n > max) {
        return null;
      }
      bytes.write(chunk, 0, n);
    }
    return bytes.toByteArray();
  }
}
