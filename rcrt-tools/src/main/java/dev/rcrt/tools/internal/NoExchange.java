package dev.rcrt.tools.internal;

import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ToolExchange#none()}: progress dropped, log messages to SLF4J, no sampling nor elicitation. */
public enum NoExchange implements ToolExchange {
  INSTANCE;

  private static final Logger LOG = LoggerFactory.getLogger("dev.rcrt.tools.log");

  @Override
  public void progress(double progress, @Nullable Double total, @Nullable String message) {
    // nobody asked for progress
  }

  @Override
  public void log(LogLevel level, String message) {
    switch (level) {
      case DEBUG -> LOG.debug("{}", message);
      case INFO, NOTICE -> LOG.info("{}", message);
      case WARNING -> LOG.warn("{}", message);
      default -> LOG.error("{}", message);
    }
  }

  @Override
  public Sampled sample(Sampling request) {
    throw new ToolException(ToolErrorCode.TOOL_UNSUPPORTED,
        "the tool asked its caller's model (sampling), and this caller offers none; call it from an MCP client with the sampling capability");
  }

  @Override
  public Elicited elicit(Elicitation request) {
    throw new ToolException(ToolErrorCode.TOOL_UNSUPPORTED,
        "the tool asked its caller's user for input (elicitation), and this caller offers none; call it from an MCP client with the elicitation capability");
  }
}
