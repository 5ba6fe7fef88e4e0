package dev.rcrt.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.internal.hints.CompiledHints;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The views agents see: each breadcrumb's context shaped by its {@code llm_hints}, while {@link
 * BreadcrumbStore#get} keeps returning the full record.
 *
 * <p><b>Which hints apply:</b> the record's own {@code llm_hints} when present, else those of the
 * {@code schema.def.v1} breadcrumb tagged {@code defines:<schema_name>}, read from its top-level
 * {@code llm_hints} or, failing that, its {@code context.llm_hints}. A record with neither is shown
 * whole, unless {@link Builder#requireHints(boolean)} makes that an error. Compiled hints are cached
 * by the version of the breadcrumb they came from, so a changed {@code schema.def.v1} applies to the
 * next view.
 *
 * <p><b>Sensitivity:</b> a secret record ({@link Breadcrumb#isSecret()}: sensitivity {@code secret}, or a secret schema such as {@code secret.v1}) never has a view.
 *
 * <p><b>Errors:</b> malformed hints ({@link ValidationException}) and failing rules ({@link
 * HintException}) are thrown, naming the breadcrumb and the rule. {@link Builder#lenient(boolean)}
 * instead logs them and shows the raw context; it must be chosen explicitly.
 *
 * <p>Thread-safe.
 */
public final class ContextView {
  private static final Logger LOG = LoggerFactory.getLogger(ContextView.class);

  /** The schema of schema definitions. */
  public static final String SCHEMA_DEFINITION = "schema.def.v1";

  private final BreadcrumbStore store;
  private final boolean lenient;
  private final boolean requireHints;
  private final SchemaDefinitions definitions;
  private final ConcurrentHashMap<String, Compiled> cache = new ConcurrentHashMap<>();

  /** Hints compiled from one version of one breadcrumb (the record itself or a schema definition). */
  private record Compiled(long version, CompiledHints hints) {}

  private ContextView(Builder b) {
    this.store = b.store;
    this.lenient = b.lenient;
    this.requireHints = b.requireHints;
    this.definitions = SchemaDefinitions.of(b.store, b.trustedWriters);
  }

  /** Strict views over {@code store}. */
  public static ContextView of(BreadcrumbStore store) {
    return builder(store).build();
  }

  /** Starts a builder for views over {@code store}, strict and not requiring hints by default. */
  public static Builder builder(BreadcrumbStore store) {
    return new Builder(store);
  }

  /**
   * The view of breadcrumb {@code id}.
   *
   * @return empty when there is no such breadcrumb or it is secret
   * @throws ValidationException for malformed hints (strict mode)
   * @throws HintException when a rule fails (strict mode)
   */
  public Optional<BreadcrumbView> view(String id) {
    return store.get(id).flatMap(this::view);
  }

  /**
   * The view of {@code breadcrumb}.
   *
   * @return empty when the breadcrumb is secret
   * @throws ValidationException for malformed hints (strict mode)
   * @throws HintException when a rule fails (strict mode)
   */
  public Optional<BreadcrumbView> view(Breadcrumb breadcrumb) {
    if (breadcrumb.isSecret()) {
      return Optional.empty();
    }
    String where = "breadcrumb '" + breadcrumb.id() + "' (" + breadcrumb.schemaName() + ")";
    JsonNode context;
    try {
      CompiledHints hints = hintsFor(breadcrumb, where);
      context = hints == null ? breadcrumb.context() : hints.apply(breadcrumb.context(), where);
    } catch (ValidationException | HintException e) {
      if (!lenient) {
        throw e;
      }
      LOG.warn("{}: showing the raw context (lenient views)", e.getMessage());
      context = breadcrumb.context();
    }
    return Optional.of(
        new BreadcrumbView(breadcrumb.id(), breadcrumb.title(), breadcrumb.schemaName(), breadcrumb.tags(), breadcrumb.version(), context));
  }

  private @Nullable CompiledHints hintsFor(Breadcrumb b, String where) {
    if (b.llmHints() != null && !b.llmHints().isNull()) {
      return compiled("record:" + b.id(), b.version(), b.llmHints(), where);
    }
    Breadcrumb definition = definitions.definition(b.schemaName()).orElse(null);
    JsonNode hints = null;
    if (definition != null) {
      hints = definition.llmHints() != null && !definition.llmHints().isNull() ? definition.llmHints() : definition.context().get("llm_hints");
    }
    if (definition == null || hints == null || hints.isNull()) {
      if (requireHints) {
        throw new ValidationException(
            where + ": no llm_hints on the record and no schema.def.v1 tagged 'defines:" + b.schemaName()
                + "' with llm_hints; add one");
      }
      return null;
    }
    return compiled("schema:" + definition.id(), definition.version(), hints, "schema definition '" + definition.id() + "'");
  }

  private CompiledHints compiled(String key, long version, JsonNode hints, String where) {
    Compiled hit = cache.get(key);
    if (hit != null && hit.version() == version) {
      return hit.hints();
    }
    CompiledHints fresh;
    try {
      fresh = CompiledHints.compile(hints);
    } catch (ValidationException e) {
      throw new ValidationException(where + " " + e.getMessage());
    }
    cache.put(key, new Compiled(version, fresh));
    return fresh;
  }

  /** Builder for {@link ContextView}. Not thread-safe. */
  public static final class Builder {
    private final BreadcrumbStore store;
    private boolean lenient;
    private boolean requireHints;
    private java.util.function.Predicate<Principal> trustedWriters = Principal::isHost;

    private Builder(BreadcrumbStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /** Log failing or malformed hints and show the raw context, instead of throwing; default false. */
    public Builder lenient(boolean lenient) {
      this.lenient = lenient;
      return this;
    }

    /**
     * Whose {@code schema.def.v1} hints apply; default the host only (see {@link
     * SchemaDefinitions}). A record's own {@code llm_hints} shape only its own view and always
     * apply.
     */
    public Builder trustedWriters(java.util.function.Predicate<Principal> writers) {
      this.trustedWriters = Objects.requireNonNull(writers, "writers");
      return this;
    }

    /** Make a record without any hints an error instead of showing it whole; default false. */
    public Builder requireHints(boolean requireHints) {
      this.requireHints = requireHints;
      return this;
    }

    /** The view, with what was set. */
    public ContextView build() {
      return new ContextView(this);
    }
  }
}
