package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.agui.AgUiServer;
import dev.rcrt.core.Principal;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * {@code rcrt.agui.enabled=true}: the store's agent records served to front-ends over AG-UI ({@link
 * AgUiServer}, {@code /agui/ID}) on a listener of its own at {@code rcrt.agui.host}:{@code
 * rcrt.agui.port}, with {@code rcrt-agui} on the class path; {@code rcrt.agui.console=true} adds the
 * console at {@code /}. Each agent runs on the application's model client and tool runner, built as
 * the application's own agent is. The runner takes the AG-UI caller's decisions ({@link
 * AgUiServer#CALLER}) and those of the console's {@code rcrt.agui.approvers} ({@code user:NAME}). A
 * host other than a loopback address needs {@code rcrt.agui.bearer-token}.
 */
@AutoConfiguration(after = RcrtAutoConfiguration.class)
@ConditionalOnClass(AgUiServer.class)
@ConditionalOnProperty(prefix = "rcrt.agui", name = "enabled", havingValue = "true")
public class RcrtAguiAutoConfiguration {
  /** Created by Spring Boot when the auto-configuration applies. */
  public RcrtAguiAutoConfiguration() {}

  /** The AG-UI caller's resumes, and the console's approvers' decisions, count as decisions. */
  @Bean
  ToolRunnerCustomizer rcrtAguiApprovers(RcrtProperties properties) {
    return b -> {
      b.approvers(AgUiServer.CALLER);
      for (String name : properties.getAgui().getApprovers()) {
        b.approvers(Principal.ofWriter("user:" + name.toLowerCase(Locale.ROOT)));
      }
    };
  }

  /**
   * The listening server; Spring closes it with the context.
   *
   * @throws IllegalArgumentException at start for a non-loopback host without a bearer token
   */
  @Bean
  @ConditionalOnBean({ToolRunner.class, LlmClient.class})
  @ConditionalOnMissingBean
  AgUiServer rcrtAgUiServer(
      ToolRunner runner,
      LlmClient llm,
      StartupBreadcrumbs loaded,
      RcrtProperties properties,
      ObjectProvider<ModelInstrumentation> instrumentation,
      ObjectProvider<AgentExecutorCustomizer> customizers) {
    RcrtProperties.Agui agui = properties.getAgui();
    AgUiServer.Builder b = AgUiServer.builder(runner,
            agent -> RcrtAutoConfiguration.executor(agent, llm, runner, properties.getAgent(), instrumentation, customizers))
        .http(agui.getHost(), agui.getPort())
        .bearerToken(agui.getBearerToken())
        .allowedOrigins(agui.getAllowedOrigins().toArray(String[]::new))
        .agents(agui.getAgents().toArray(String[]::new))
        .serveRuns(agui.servesRuns(runner.store()));
    if (agui.isConsole()) {
      b.console(agui.getApprovers().toArray(String[]::new));
    }
    try {
      return b.start();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("rcrt.agui: " + e.getMessage() + " (rcrt.agui.bearer-token), or bind a loopback address (rcrt.agui.host)", e);
    }
  }
}
