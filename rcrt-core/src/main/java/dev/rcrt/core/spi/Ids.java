package dev.rcrt.core.spi;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random record ids: version-4 UUIDs from {@link ThreadLocalRandom}. Ids identify records and are
 * no secret, so they need uniqueness, not the shared, locked {@code SecureRandom} behind {@link
 * UUID#randomUUID()} (which costs more than the rest of a tool call's bookkeeping).
 */
public final class Ids {
  private Ids() {}

  /**
   * The same id every time for the same {@code name}: a name-based (version 3) UUID, for records
   * whose id must be known before they exist (a run's tool requests, derived from the run and the
   * call), so that a process resuming the work finds them instead of writing them twice.
   */
  public static String named(String name) {
    return UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
  }

  /** A new random id, such as {@code 5f0c2d1e-8a4b-4c3d-9e2f-1a2b3c4d5e6f}. */
  public static String random() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long high = (r.nextLong() & ~0xF000L) | 0x4000L;
    long low = (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(high, low).toString();
  }
}
