/**
 * RCRT agents: the {@link dev.rcrt.agent.ToolPromptAdapter} that turns discovered tools into an LLM
 * prompt and OpenAI {@code tools}, agent definitions, typed conversation records, and the {@link
 * dev.rcrt.agent.AgentExecutor} that runs the tool-call loop over any {@link
 * dev.rcrt.llm.LlmClient} and records every step as a breadcrumb.
 */
@NullMarked
package dev.rcrt.agent;

import org.jspecify.annotations.NullMarked;
