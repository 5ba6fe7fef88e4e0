/**
 * LangChain4j both ways: {@link dev.rcrt.langchain4j.LangChain4jLlmClient} runs the SDK's agents on
 * any LangChain4j {@code ChatModel} (Anthropic, Gemini, Bedrock, Mistral, native Ollama, …), and
 * {@link dev.rcrt.langchain4j.BreadcrumbToolProvider} offers the store's tools to LangChain4j's
 * {@code AiServices}; {@link dev.rcrt.langchain4j.LangChain4jEmbeddings} embeds a store's records
 * with any LangChain4j {@code EmbeddingModel}.
 */
@NullMarked
package dev.rcrt.langchain4j;

import org.jspecify.annotations.NullMarked;
