package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.opentelemetry.RcrtTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * OpenTelemetry GenAI spans and metrics through {@code rcrt-opentelemetry}, when it is on the class
 * path and the application has an {@link OpenTelemetry} bean: the agent's turns, its model calls
 * and its tool calls. Message content is not captured (define an {@link RcrtTelemetry} bean with
 * {@code captureContent(true)} for that).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({RcrtTelemetry.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
class TelemetryConfiguration {
  @Bean
  @ConditionalOnMissingBean
  RcrtTelemetry rcrtTelemetry(OpenTelemetry otel) {
    return RcrtTelemetry.create(otel);
  }

  @Bean
  ToolRunnerCustomizer rcrtTelemetryTools(RcrtTelemetry telemetry) {
    return b -> b.addInterceptor(telemetry.toolInterceptor());
  }

  @Bean
  AgentExecutorCustomizer rcrtTelemetryAgent(RcrtTelemetry telemetry) {
    return b -> b.observer(telemetry.agentObserver());
  }

  @Bean
  ModelInstrumentation rcrtTelemetryModel(RcrtTelemetry telemetry) {
    return (client, runner) -> telemetry.instrument(client, providerName(client), runner);
  }

  /** {@code gen_ai.provider.name}: from an OpenAI-compatible client's endpoint, else the client's class. */
  private static String providerName(LlmClient client) {
    return client instanceof OpenAiCompatibleLlmClient openAi
        ? RcrtTelemetry.providerName(openAi.endpoint())
        : client.getClass().getSimpleName();
  }
}
