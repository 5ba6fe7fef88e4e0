package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Principal;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolInterceptor;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.internal.SecretValues;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chain at one position, after OkHttp's {@code RealInterceptorChain}: {@link #proceed} runs
 * link {@code index} with the chain at {@code index + 1}, turns what it throws into an error
 * response, and enforces the contract (proceed at most once, keep the request id and tool, return a
 * response), naming the link that broke it.
 */
public final class RealToolChain implements ToolChain {
  private static final Logger LOG = LoggerFactory.getLogger(RealToolChain.class);

  private final List<ToolInterceptor> links;
  private final int index;
  private final CallState call;
  private final Duration defaultTimeout;
  private final SecretValues known;
  private boolean proceeded;

  RealToolChain(List<ToolInterceptor> links, int index, CallState call, Duration defaultTimeout, SecretValues known) {
    this.links = links;
    this.index = index;
    this.call = call;
    this.defaultTimeout = defaultTimeout;
    this.known = known;
  }

  @Override
  public JsonNode scrub(JsonNode json) {
    return known.scrub(json);
  }

  CallState call() {
    return call;
  }

  @Override
  public ToolRequest request() {
    return call.request;
  }

  @Override
  public ToolDefinition tool() {
    if (call.tool == null) {
      throw new IllegalStateException("the tool is not resolved yet at this link");
    }
    return call.tool;
  }

  @Override
  public Principal caller() {
    return call.caller;
  }

  @Override
  public Duration timeout() {
    Duration own = tool().timeout();
    return own != null ? own : defaultTimeout;
  }

  @Override
  public ToolResponse proceed(ToolRequest request) {
    if (proceeded) {
      throw new IllegalStateException(holder() + " called proceed() more than once");
    }
    proceeded = true;
    if (index >= links.size()) {
      throw new IllegalStateException(holder() + " called proceed() after the last link");
    }
    if (!request.requestId().equals(call.request.requestId()) || !request.tool().equals(call.request.tool())) {
      throw new IllegalStateException(holder() + " changed the request id or tool name; only the input may change");
    }
    call.request = request;
    ToolInterceptor link = links.get(index);
    ToolResponse response;
    try {
      response = link.intercept(new RealToolChain(links, index + 1, call, defaultTimeout, known));
    } catch (ToolException e) {
      if (LOG.isDebugEnabled()) { // -v on the command line: where it failed, and why, beyond the one line the model sees
        LOG.debug("tool '{}' failed [{}]: {}\n{}, scrubbed:\n{}", call.toolName(), e.code(), known.scrub(String.valueOf(e.getMessage())),
            e.getCause() != null ? "its cause" : "where it was raised", scrubbedTrace(e.getCause() != null ? e.getCause() : e));
      }
      return call.failure(e);
    } catch (Throwable e) { // an interceptor's Error too: the call still ends with its response, a fatal one is rethrown after
      call.noteFatal(e);
      LOG.debug("tool chain link {} failed", name(link), e);
      return call.failure(
          new ToolException(
              ToolErrorCode.TOOL_FAILED, "tool '" + call.toolName() + "': chain link " + name(link) + " failed: " + Throwables.describe(e), e));
    }
    if (response == null) {
      return call.failure(
          new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + call.toolName() + "': chain link " + name(link) + " returned no response"));
    }
    return response;
  }

  /** The link that holds this chain, for errors. */
  private String holder() {
    return index == 0 ? "the runner" : name(links.get(index - 1));
  }

  /** A link's name in errors: the built-in links' names, else the class name. */
  static String name(ToolInterceptor link) {
    return link instanceof Link builtin ? builtin.name() : "'" + link.getClass().getName() + "'";
  }

  /** A built-in link, named in errors by its role. */
  interface Link extends ToolInterceptor {
    String name();
  }

  /** A stack trace whose messages are scrubbed of every secret value the call knows (frames hold none). */
  private String scrubbedTrace(Throwable t) {
    StringBuilder b = new StringBuilder();
    int depth = 0;
    for (Throwable c = t; c != null && depth < 8; c = c.getCause(), depth++) {
      b.append(depth == 0 ? "" : "Caused by: ").append(c.getClass().getName()).append(": ")
          .append(known.scrub(String.valueOf(c.getMessage()))).append('\n');
      for (StackTraceElement frame : c.getStackTrace()) {
        b.append("\tat ").append(frame).append('\n');
      }
    }
    return b.toString();
  }
}
