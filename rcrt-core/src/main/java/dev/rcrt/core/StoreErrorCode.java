package dev.rcrt.core;

/**
 * The codes a store's own failures carry (a {@code BreadcrumbStore} over a database or a remote
 * server), beside the core's {@code not_found}, {@code conflict} and {@code validation}.
 */
public enum StoreErrorCode implements ErrorCode {
  /** The store could not be reached, or it is overloaded or restarting; asking again may succeed. */
  STORE_UNAVAILABLE("store_unavailable", true),
  /** The store refused the credentials it was given. */
  STORE_UNAUTHORIZED("store_unauthorized", false),
  /** The store answered with an error that asking again will not cure. */
  STORE_FAILED("store_failed", false);

  private final String code;
  private final boolean retriable;

  StoreErrorCode(String code, boolean retriable) {
    this.code = code;
    this.retriable = retriable;
  }

  /** The wire code, such as {@code store_unavailable}. */
  @Override
  public String code() {
    return code;
  }

  /** Whether the same call may succeed later. */
  @Override
  public boolean retriable() {
    return retriable;
  }

  @Override
  public String toString() {
    return code;
  }
}
