package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Subscription;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.support.ResourcePatternResolver;

/**
 * The RCRT SDK in a Spring Boot application: a {@link BreadcrumbStore}, a {@link ToolTrustPolicy}
 * and {@link SecretResolver}, the {@code rcrt.breadcrumbs.*} records, a {@link ToolRunner} with
 * every {@code @Tool} method of the application's beans, an {@link LlmClient} and an {@link
 * AgentExecutor}. Every bean backs off when the application defines its own of that type; {@link
 * ToolRunnerCustomizer} and {@link AgentExecutorCustomizer} beans change the rest.
 *
 * <p>Runs after Spring Boot's {@code DataSource} auto-configuration, so the store can use it.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@EnableConfigurationProperties(RcrtProperties.class)
@Import({
  StoreConfigurations.Postgres.class,
  StoreConfigurations.Memory.class,
  ModelConfigurations.LangChain4j.class,
  ModelConfigurations.OpenAiCompatible.class,
  TelemetryConfiguration.class
})
public class RcrtAutoConfiguration {
  /** Created by Spring Boot when the auto-configuration applies. */
  public RcrtAutoConfiguration() {}

  /** The default policy with the {@code rcrt.trust.*} allowances; refusals name the property to set. */
  @Bean
  @ConditionalOnMissingBean
  ToolTrustPolicy rcrtToolTrustPolicy(RcrtProperties properties) {
    return TrustProperties.policy(properties.getTrust());
  }

  /** {@code secret:NAME} read from the process environment at call time. */
  @Bean
  @ConditionalOnMissingBean
  SecretResolver rcrtSecretResolver() {
    return SecretResolver.environment();
  }

  @Bean
  StartupBreadcrumbs rcrtStartupBreadcrumbs(BreadcrumbStore store, RcrtProperties properties, ResourcePatternResolver resources) {
    return StartupBreadcrumbs.load(store, properties.getBreadcrumbs(), resources);
  }

  /**
   * The runner over the store: the policy, the secrets, the application's {@link ApprovalHandler}
   * (when it defines exactly one), every {@code @Tool} bean method (published as the host), then the
   * customizers.
   */
  @Bean
  @ConditionalOnMissingBean
  ToolRunner rcrtToolRunner(
      BreadcrumbStore store,
      StartupBreadcrumbs loaded,
      ToolTrustPolicy policy,
      SecretResolver secrets,
      ObjectProvider<ApprovalHandler> approval,
      ObjectProvider<ToolRunnerCustomizer> customizers,
      ListableBeanFactory beans) {
    ToolRunner.Builder b = ToolRunner.builder(store).trustPolicy(policy).secretResolver(secrets);
    approval.ifUnique(b::approvalHandler);
    List<Object> toolBeans = ToolBeans.in(beans);
    if (!toolBeans.isEmpty()) {
      b.tools(toolBeans.toArray());
    }
    customizers.orderedStream().forEach(c -> c.customize(b));
    return b.build();
  }

  /**
   * The executor of the agent {@code rcrt.agent.id} (looked up in the store after the start-up
   * breadcrumbs are written), with the {@code rcrt.agent.*} limits, then the customizers.
   *
   * @throws dev.rcrt.core.NotFoundException at start if the store defines no such agent
   */
  @Bean
  @ConditionalOnBean(LlmClient.class)
  @ConditionalOnMissingBean
  AgentExecutor rcrtAgentExecutor(
      LlmClient llm,
      ToolRunner runner,
      StartupBreadcrumbs loaded,
      RcrtProperties properties,
      ObjectProvider<ModelInstrumentation> instrumentation,
      ObjectProvider<AgentExecutorCustomizer> customizers) {
    AgentDefinition agent = AgentDefinition.load(runner.store(), properties.getAgent().getId());
    return executor(agent, llm, runner, properties.getAgent(), instrumentation, customizers);
  }

  /**
   * An executor of {@code agent} as the starter builds every one (the application's agent, and
   * each agent served over A2A): the model with its instrumentation, the {@code rcrt.agent.*}
   * limits, then the application's customizers in their order.
   */
  static AgentExecutor executor(AgentDefinition agent, LlmClient llm, ToolRunner runner, RcrtProperties.Agent settings,
      ObjectProvider<ModelInstrumentation> instrumentation, ObjectProvider<AgentExecutorCustomizer> customizers) {
    LlmClient model = llm;
    for (ModelInstrumentation i : instrumentation.orderedStream().toList()) {
      model = i.instrument(model, runner);
    }
    AgentExecutor.Builder b = AgentExecutor.builder(model, runner)
        .agent(agent)
        .maxRounds(settings.getMaxRounds())
        .turnTimeout(settings.getTurnTimeout());
    customizers.orderedStream().forEach(c -> c.customize(b));
    return b.build();
  }

  /** {@code rcrt.agent.serve=true}: the executor also answers messages other processes write. */
  @Bean
  @ConditionalOnBean(AgentExecutor.class)
  @ConditionalOnProperty(prefix = "rcrt.agent", name = "serve", havingValue = "true")
  SmartLifecycle rcrtAgentServing(AgentExecutor executor) {
    return new SmartLifecycle() {
      private volatile @Nullable Subscription serving;

      @Override
      public void start() {
        serving = executor.start();
      }

      @Override
      public void stop() {
        Subscription s = serving;
        if (s != null) {
          s.close();
          serving = null;
        }
      }

      @Override
      public boolean isRunning() {
        return serving != null;
      }
    };
  }
}
