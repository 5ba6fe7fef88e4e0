package dev.rcrt.testing;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.core.WorkClaims;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that hands every call, unchanged, to another store: the base of a test's wrapper that
 * counts, delays or fails some calls and leaves the rest alone. Override what the test is about;
 * everything else (the claims and the vector search included) is the wrapped store's.
 *
 * <p>Holds no state of its own: it is as thread-safe as the wrapped store, and closing either is
 * the caller's business.
 */
public class ForwardingBreadcrumbStore implements BreadcrumbStore {
  private final BreadcrumbStore inner;

  /** Forwards to {@code inner}, which is not null. */
  public ForwardingBreadcrumbStore(BreadcrumbStore inner) {
    this.inner = Objects.requireNonNull(inner, "inner");
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create) {
    return inner.create(create);
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create, WorkClaims.Claim fence) {
    return inner.create(create, fence);
  }

  @Override
  public Optional<Breadcrumb> get(String id) {
    return inner.get(id);
  }

  @Override
  public Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update) {
    return inner.update(id, expectedVersion, update);
  }

  @Override
  public boolean delete(String id) {
    return inner.delete(id);
  }

  @Override
  public List<Breadcrumb> search(Selector selector, int limit, int offset) {
    return inner.search(selector, limit, offset);
  }

  @Override
  public List<Breadcrumb> history(String id) {
    return inner.history(id);
  }

  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    return inner.subscribe(selector, listener);
  }

  @Override
  public int purgeExpired() {
    return inner.purgeExpired();
  }

  @Override
  public Optional<WorkClaims> claims() {
    return inner.claims();
  }

  @Override
  public Optional<VectorSearch> vectorSearch() {
    return inner.vectorSearch();
  }
}
