package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.tools.ToolRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code rcrt} health indicator, when Spring Boot's health support (Actuator) is present:
 * {@code management.health.rcrt.enabled=false} turns it off.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("rcrt")
class HealthConfiguration {
  @Bean
  @ConditionalOnBean(ToolRunner.class)
  HealthIndicator rcrtHealthIndicator(ToolRunner runner) {
    return new RcrtHealthIndicator(runner);
  }
}
