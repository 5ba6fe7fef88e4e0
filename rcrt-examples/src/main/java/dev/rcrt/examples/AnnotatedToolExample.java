package dev.rcrt.examples;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.tools.Tool;
import dev.rcrt.tools.ToolParam;
import dev.rcrt.tools.ToolRunner;

/** A tool from an annotated method, with its parameter named explicitly (no javac -parameters needed). */
public final class AnnotatedToolExample {
  private AnnotatedToolExample() {}

  // docs:begin rail
  public static final class Rail {
    public record Trip(String from, String to, int passengers) {}

    @Tool(description = "Price a trip for its passengers")
    public double price(@ToolParam(name = "trip", description = "where and for how many") Trip trip) {
      return 42.5 * trip.passengers();
    }
  }

  static ToolRunner runner(BreadcrumbStore store) {
    return ToolRunner.builder(store).tools(new Rail()).build();
  }
  // docs:end rail
}
