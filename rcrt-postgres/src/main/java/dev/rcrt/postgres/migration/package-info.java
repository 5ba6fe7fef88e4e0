/**
 * The store's Flyway migrations, {@code V<n>__<what>.sql}, kept as resources of this package (so
 * that the module descriptor can open them to Flyway). No classes.
 */
@NullMarked
package dev.rcrt.postgres.migration;

import org.jspecify.annotations.NullMarked;
