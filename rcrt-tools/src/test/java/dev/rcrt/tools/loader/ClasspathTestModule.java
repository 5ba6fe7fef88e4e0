package dev.rcrt.tools.loader;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolModule;
import java.util.Map;

/** A module found through ServiceLoader on the test classpath. */
public final class ClasspathTestModule implements ToolModule {
  @Override
  public String name() {
    return "text-tools";
  }

  @Override
  public String version() {
    return "2.0.0";
  }

  @Override
  public Map<String, ToolHandler> handlers() {
    return Map.of("reverse", (input, context) -> RcrtJson.object().put("text", new StringBuilder(input.path("text").asText()).reverse().toString()));
  }
}
