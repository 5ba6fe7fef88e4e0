/**
 * What the SDK's own modules share and a host writing its own runtime, store or transport may use:
 * small, documented and kept compatible like the rest of the public API. Everything under {@code
 * dev.rcrt.core.internal} stays inside rcrt-core.
 *
 * <p>All types are non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.rcrt.core.spi;

import org.jspecify.annotations.NullMarked;
