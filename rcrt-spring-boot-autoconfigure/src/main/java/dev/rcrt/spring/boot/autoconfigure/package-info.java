/**
 * Spring Boot auto-configuration of the RCRT SDK: a {@link dev.rcrt.core.BreadcrumbStore}
 * (PostgreSQL through the application's {@code DataSource} when {@code rcrt-postgres} is present,
 * else in memory), an {@link dev.rcrt.llm.LlmClient} (a LangChain4j {@code ChatModel} bean bridged,
 * else an OpenAI-compatible endpoint from {@code rcrt.model.*}), a {@link dev.rcrt.tools.ToolRunner}
 * with every {@code @Tool} bean method, and an {@link dev.rcrt.agent.AgentExecutor}; each backs off
 * when the application defines its own. Configured by {@link
 * dev.rcrt.spring.boot.autoconfigure.RcrtProperties} ({@code rcrt.*}).
 */
@NullMarked
package dev.rcrt.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
