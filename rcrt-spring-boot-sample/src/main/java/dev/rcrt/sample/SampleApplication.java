package dev.rcrt.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * A shipping assistant: a Spring Boot service whose agent answers through a JavaScript tool kept as
 * a breadcrumb ({@code shipping-total}, in {@code breadcrumbs/}) and a Java {@code @Tool} method
 * ({@link ParcelRates}), with every step recorded in PostgreSQL. Everything is wired by the RCRT
 * starter from {@code application.properties}.
 */
@SpringBootApplication
public class SampleApplication {
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }

  /**
   * A request that says {@code Expect: 100-continue} (curl does for bodies over 1 MiB) is told to
   * go on only when {@link AskController} reads its body. One whose declared length is over the
   * limit is refused with 413 before its client sends a byte of it. Tomcat's default tells it at
   * once: the client sends the whole body, of which Tomcat reads and throws away at most {@code
   * server.tomcat.max-swallow-size} (8 MiB here) before it closes the connection under the rest,
   * so the client of a larger body may see a reset instead of the 413.
   */
  @Bean
  TomcatConnectorCustomizer continueOnlyWhenTheBodyIsRead() {
    return connector -> connector.setProperty("continueResponseTiming", "onRead");
  }
}
