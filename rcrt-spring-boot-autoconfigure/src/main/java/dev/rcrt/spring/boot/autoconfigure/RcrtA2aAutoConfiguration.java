package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.a2a.A2aServer;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;
import java.net.URI;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * {@code rcrt.a2a.enabled=true}: the store's agent records served over A2A ({@link A2aServer}) on a
 * listener of their own at {@code rcrt.a2a.host}:{@code rcrt.a2a.port}, with {@code rcrt-a2a} on the
 * class path. Each agent runs on the application's model client and tool runner, built as the
 * application's own agent is ({@code rcrt.agent.*} limits, {@link AgentExecutorCustomizer}s). The
 * runner takes the A2A caller's approval replies ({@link A2aServer#CALLER} is added to its
 * approvers). A host other than a loopback address needs {@code rcrt.a2a.bearer-token}.
 */
@AutoConfiguration(after = RcrtAutoConfiguration.class)
@ConditionalOnClass(A2aServer.class)
@ConditionalOnProperty(prefix = "rcrt.a2a", name = "enabled", havingValue = "true")
public class RcrtA2aAutoConfiguration {
  /** Created by Spring Boot when the auto-configuration applies. */
  public RcrtA2aAutoConfiguration() {}

  /** The A2A caller's replies to a task that waits for approval count as decisions. */
  @Bean
  ToolRunnerCustomizer rcrtA2aApprovers() {
    return b -> b.approvers(A2aServer.CALLER);
  }

  /**
   * The listening server; Spring closes it with the context.
   *
   * @throws IllegalArgumentException at start for a non-loopback host without a bearer token
   */
  @Bean
  @ConditionalOnBean({ToolRunner.class, LlmClient.class})
  @ConditionalOnMissingBean
  A2aServer rcrtA2aServer(
      ToolRunner runner,
      LlmClient llm,
      StartupBreadcrumbs loaded,
      RcrtProperties properties,
      ObjectProvider<ModelInstrumentation> instrumentation,
      ObjectProvider<AgentExecutorCustomizer> customizers) {
    RcrtProperties.A2a a2a = properties.getA2a();
    A2aServer.Builder b = A2aServer.builder(runner,
            agent -> RcrtAutoConfiguration.executor(agent, llm, runner, properties.getAgent(), instrumentation, customizers))
        .http(a2a.getHost(), a2a.getPort())
        .bearerToken(a2a.getBearerToken())
        .allowedOrigins(a2a.getAllowedOrigins().toArray(String[]::new))
        .agents(a2a.getAgents().toArray(String[]::new))
        .serveRuns(a2a.servesRuns(runner.store()));
    if (a2a.getPublicUrl() != null) {
      b.publicUrl(URI.create(a2a.getPublicUrl()));
    }
    try {
      return b.start();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("rcrt.a2a: " + e.getMessage() + " (rcrt.a2a.bearer-token), or bind a loopback address (rcrt.a2a.host)", e);
    }
  }
}
