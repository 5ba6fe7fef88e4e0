/**
 * The testing kit: contract suites that host implementations of the SDK's interfaces extend in
 * their own tests, a scripted model, a clock that tests move by hand, and a store wrapper.
 *
 * <p>Add {@code dev.rcrt:rcrt-testing} with test scope, then extend {@link
 * dev.rcrt.testing.BreadcrumbStoreContract} to prove a custom {@code BreadcrumbStore} behaves like
 * the reference store, or {@link dev.rcrt.testing.LlmClientContract} to prove a custom {@code
 * LlmClient} does what an agent needs; test agent code offline with {@link
 * dev.rcrt.testing.ScriptedLlmClient}, and timeouts without waiting with {@link
 * dev.rcrt.testing.TestClock}; count, delay or fail some of a store's calls by overriding them in a
 * {@link dev.rcrt.testing.ForwardingBreadcrumbStore}; wait for what a store's writers do on its
 * events, never by sleeping, with {@link dev.rcrt.testing.StoreWaits} and {@link
 * dev.rcrt.testing.RecordedEvents}, for what other processes write to their logs with {@link
 * dev.rcrt.testing.LogWaits}, and for what other threads say on a monitor with {@link
 * dev.rcrt.testing.MonitorWaits}; keep the common fork-join pool busy, as a host may, with {@link
 * dev.rcrt.testing.BusyCommonPool}.
 */
@NullMarked
package dev.rcrt.testing;

import org.jspecify.annotations.NullMarked;
