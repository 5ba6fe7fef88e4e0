/**
 * A {@link dev.rcrt.core.BreadcrumbStore} on PostgreSQL: {@link
 * dev.rcrt.postgres.PostgresBreadcrumbStore}, persistent and shared by every process on the same
 * database, with events across processes.
 */
@NullMarked
package dev.rcrt.postgres;

import org.jspecify.annotations.NullMarked;
