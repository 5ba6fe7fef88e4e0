package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.tools.ToolRunner;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code rcrt} health indicator (store reachable, tools that cannot run), when Spring Boot's health support
 * (Actuator) is present and a {@link ToolRunner} is configured: {@code
 * management.health.rcrt.enabled=false} turns it off.
 */
@AutoConfiguration(after = RcrtAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("rcrt")
public class RcrtHealthAutoConfiguration {
  /** Created by Spring Boot when the auto-configuration applies. */
  public RcrtHealthAutoConfiguration() {}

  @Bean
  @ConditionalOnBean(ToolRunner.class)
  HealthIndicator rcrtHealthIndicator(ToolRunner runner) {
    return new RcrtHealthIndicator(runner);
  }
}
