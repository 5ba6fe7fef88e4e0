package dev.rcrt.tools.internal.trust;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.CallScope;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The store as a running tool sees it: every write is stamped with the tool's principal ({@code
 * created_by} / {@code updated_by} = {@code tool:<name>}, whatever the payload claims), carries no
 * secret value the runner knows (title, description and context are scrubbed), and writes, updates
 * or deletes of {@link ToolTrustPolicy#PROTECTED_SCHEMAS} records are refused unless the policy
 * trusts that principal, and so are idempotency keys reserved for runners' responses. A tool
 * updates or deletes only what it created itself, or what {@link ToolTrustPolicy#mayChange} grants;
 * {@link ToolTrustPolicy#APPEND_ONLY_SCHEMAS} records never. Every refusal is the tool's {@code
 * tool_untrusted} error and is noted in the call's scope: the call's {@code tool.response.v1}
 * lists it under {@code refused_writes}, whether or not the tool let the error end its call. Reads, searches and
 * {@link #vectorSearch()} pass through; the tool gets no {@link #claims()}. Thread-safe as the store it wraps.
 */
public final class StampedStore implements BreadcrumbStore {
  private final BreadcrumbStore store;
  private final Principal writer;
  private final ToolTrustPolicy policy;
  private final CallScope secrets;

  public StampedStore(BreadcrumbStore store, Principal writer, ToolTrustPolicy policy, CallScope secrets) {
    this.store = store;
    this.writer = writer;
    this.policy = policy;
    this.secrets = secrets;
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create) {
    check(create.schemaName(), "create");
    if (create.idempotencyKey() != null && create.idempotencyKey().startsWith(ToolResponse.IDEMPOTENCY_PREFIX)) {
      // a tool holding a request's response key would make the runner's real response a no-op
      throw refused(
          writer.wire() + " may not use the idempotency key '" + create.idempotencyKey() + "': keys starting with '"
              + ToolResponse.IDEMPOTENCY_PREFIX + "' belong to the runners' responses");
    }
    if (create.tags().contains(ToolRunner.DIRECT_TAG)) {
      // listeners leave requests with this tag to the runner that wrote them: from a tool, nobody would ever answer it
      throw refused(
          writer.wire() + " may not tag a breadcrumb '" + ToolRunner.DIRECT_TAG + "': the tag marks requests a runner runs itself");
    }
    BreadcrumbCreate clean =
        new BreadcrumbCreate(
            create.id(), secrets.scrub(create.title()), create.description() == null ? null : secrets.scrub(create.description()),
            create.semanticVersion(), secrets.scrub(create.context()), create.tags(), create.schemaName(), create.llmHints(),
            create.visibility(), create.sensitivity(), create.ttl(), create.ttlType(), create.ttlConfig(), writer.wire(),
            create.idempotencyKey());
    return store.create(clean);
  }

  @Override
  public Optional<Breadcrumb> get(String id) {
    return store.get(id);
  }

  @Override
  public Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update) {
    store.get(id).ifPresent(existing -> checkChange(existing, "update"));
    BreadcrumbUpdate clean =
        new BreadcrumbUpdate(
            update.title() == null ? null : secrets.scrub(update.title()),
            update.description() == null ? null : secrets.scrub(update.description()), update.semanticVersion(),
            update.context() == null ? null : secrets.scrub(update.context()), update.tags(), update.llmHints(),
            update.visibility(), update.sensitivity(), writer.wire());
    return store.update(id, expectedVersion, clean);
  }

  @Override
  public boolean delete(String id) {
    store.get(id).ifPresent(existing -> checkChange(existing, "delete"));
    return store.delete(id);
  }

  @Override
  public List<Breadcrumb> search(Selector selector, int limit, int offset) {
    return store.search(selector, limit, offset);
  }

  @Override
  public List<Breadcrumb> history(String id) {
    return store.history(id);
  }

  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    return store.subscribe(selector, listener);
  }

  @Override
  public int purgeExpired() {
    return store.purgeExpired();
  }

  @Override
  public Optional<VectorSearch> vectorSearch() {
    return store.vectorSearch();
  }

  /**
   * An update or delete: append-only records never, protected ones only for a trusted writer, and
   * otherwise only records this principal created or the policy lets it change. {@code created_by}
   * and the schema never change, so what is checked here holds for the version the store changes.
   */
  private void checkChange(Breadcrumb existing, String action) {
    String schema = existing.schemaName();
    if (schema != null && ToolTrustPolicy.APPEND_ONLY_SCHEMAS.contains(schema)) {
      throw refused(
          writer.wire() + " may not " + action + " breadcrumb '" + existing.id() + "': " + schema + " records are the"
              + " conversation's audit trail, append-only for everyone but the host; write a new breadcrumb instead");
    }
    check(schema, action);
    Principal creator = Principal.ofWriter(existing.createdBy());
    if (!creator.equals(writer) && !policy.mayChange(writer, existing)) {
      throw refused(
          writer.wire() + " may not " + action + " breadcrumb '" + existing.id() + "' (" + schema + "), which "
              + creator.wire() + " created: a tool may change only the breadcrumbs it created itself unless the host's"
              + " ToolTrustPolicy allows more (ToolTrustPolicy.Builder.allowChanges)");
    }
  }

  /** A refused write: noted in the call's scope for the trail, and the error the tool gets. */
  private ToolException refused(String why) {
    secrets.refusedWrite(why);
    return new ToolException(ToolErrorCode.TOOL_UNTRUSTED, why);
  }

  private void check(@Nullable String schema, String action) {
    if (schema != null && ToolTrustPolicy.PROTECTED_SCHEMAS.contains(schema) && !policy.trusts(writer, schema)) {
      throw refused(
          writer.wire() + " may not " + action + " a " + schema + " breadcrumb: tools, tool configs, agents and"
              + " schema definitions are taken only from writers the host's ToolTrustPolicy trusts;"
              + " write other kinds of breadcrumbs instead");
    }
  }
}
