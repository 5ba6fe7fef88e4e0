/**
 * The chat-model port: the {@link dev.rcrt.llm.LlmClient} SPI a host implements to plug in any
 * provider, its request and answer types in OpenAI chat-completions terms, and {@link
 * dev.rcrt.llm.OpenAiCompatibleLlmClient} for every OpenAI-compatible endpoint. Depends on
 * rcrt-core only: no tools, no agent.
 */
@NullMarked
package dev.rcrt.llm;

import org.jspecify.annotations.NullMarked;
