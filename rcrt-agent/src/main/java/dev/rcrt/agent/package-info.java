/**
 * RCRT agents: the {@link dev.rcrt.agent.ToolPromptAdapter} that turns discovered tools into an LLM
 * prompt and OpenAI {@code tools}, the {@link dev.rcrt.agent.LlmClient} SPI with an
 * OpenAI-compatible implementation, agent definitions, and the {@link dev.rcrt.agent.AgentExecutor}
 * that runs the tool-call loop and records every step as a breadcrumb.
 */
@NullMarked
package dev.rcrt.agent;

import org.jspecify.annotations.NullMarked;
