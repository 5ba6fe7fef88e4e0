/**
 * Contract suites that host implementations of the SDK's interfaces extend in their own tests.
 *
 * <p>Add {@code dev.rcrt:rcrt-testing} with test scope and extend {@link
 * dev.rcrt.testing.BreadcrumbStoreContract} to prove a custom {@code BreadcrumbStore} behaves like
 * the reference store.
 */
@NullMarked
package dev.rcrt.testing;

import org.jspecify.annotations.NullMarked;
