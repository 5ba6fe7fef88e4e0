package dev.rcrt.core;

/**
 * An optimistic update named a version that is no longer current (RCRT answers HTTP 412 to the
 * same {@code If-Match} mismatch). Nothing was written. Code {@code "conflict"}; retriable after
 * re-reading the record.
 */
public class ConflictException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /** The breadcrumb id. */
  private final String id;
  /** The version the caller named. */
  private final long expectedVersion;
  /** The version the store holds. */
  private final long actualVersion;

  /**
   * @param id the breadcrumb id
   * @param expectedVersion the version the caller expected
   * @param actualVersion the version the store holds
   */
  public ConflictException(String id, long expectedVersion, long actualVersion) {
    super(
        "conflict",
        "breadcrumb '" + id + "' is at version " + actualVersion + ", not the expected "
            + expectedVersion + ": re-read it and apply the change again",
        true,
        null);
    this.id = id;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }

  /** The id of the breadcrumb whose update was refused. */
  public String id() {
    return id;
  }

  /** The version the caller expected. */
  public long expectedVersion() {
    return expectedVersion;
  }

  /** The version the store held when the update was refused. */
  public long actualVersion() {
    return actualVersion;
  }
}
