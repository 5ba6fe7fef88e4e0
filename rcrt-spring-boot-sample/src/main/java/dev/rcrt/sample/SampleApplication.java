package dev.rcrt.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

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
}
