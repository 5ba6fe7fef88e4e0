package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;

/** Wraps the model client the agent executor uses (telemetry); the {@code LlmClient} bean itself is left as it is. */
@FunctionalInterface
interface ModelInstrumentation {
  LlmClient instrument(LlmClient client, ToolRunner runner);
}
