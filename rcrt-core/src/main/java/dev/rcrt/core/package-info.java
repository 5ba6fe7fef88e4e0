/**
 * RCRT core: the breadcrumb record, selectors and the {@link dev.rcrt.core.BreadcrumbStore} contract.
 *
 * <p>Everything an RCRT agent knows and does is a {@link dev.rcrt.core.Breadcrumb}: a versioned JSON
 * record kept in a store. This package holds the wire types (RCRT's snake_case JSON field names),
 * the store interface that hosts implement, a thread-safe {@link dev.rcrt.core.InMemoryBreadcrumbStore},
 * loading of RCRT bootstrap-breadcrumb files, and the exception hierarchy rooted at
 * {@link dev.rcrt.core.RcrtException}. Core knows nothing about tools or language models.
 *
 * <p>All types are non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.rcrt.core;

import org.jspecify.annotations.NullMarked;
