package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.tools.ToolRunner;

/**
 * Changes the auto-configured {@link ToolRunner} before it is built: add a runtime, an interceptor,
 * handlers, approvers, limits. Define one or more as beans; they are applied in their {@code @Order}
 * after the properties, the {@code @Tool} beans and the approval handler, so they have the last word.
 */
@FunctionalInterface
public interface ToolRunnerCustomizer {
  /** Changes {@code builder}; called once, on the thread that creates the runner bean. */
  void customize(ToolRunner.Builder builder);
}
