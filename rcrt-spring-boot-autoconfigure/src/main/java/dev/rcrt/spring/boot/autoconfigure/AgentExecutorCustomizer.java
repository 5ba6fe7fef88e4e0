package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.agent.AgentExecutor;

/**
 * Changes the auto-configured {@link AgentExecutor} before it is built: an observer, a stream
 * listener, agents as tools, the tool mode, limits. Define one or more as beans; they are applied in
 * their {@code @Order} after the {@code rcrt.agent.*} properties.
 */
@FunctionalInterface
public interface AgentExecutorCustomizer {
  /** Changes {@code builder}; called once, on the thread that creates the executor bean. */
  void customize(AgentExecutor.Builder builder);
}
