package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolEventListener;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.Invoker;
import dev.rcrt.tools.internal.trust.StampedStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The last link: runs the tool's code under its deadline. Invokers that stop by the deadline
 * themselves (HTTP, JavaScript, containers) are called directly on the calling thread; Java
 * handlers run on the runner's {@link JavaToolThreads}, whose caller stops waiting at the deadline
 * whatever the handler does. The handler gets a
 * deep copy of the input and configuration and a store that stamps its writes {@code tool:<name>},
 * so nothing it does changes a recorded request or passes for the host.
 */
final class InvokeLink implements RealToolChain.Link {
  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final JavaToolThreads threads;
  private final ToolEventListener listeners;

  InvokeLink(BreadcrumbStore store, ToolTrustPolicy policy, JavaToolThreads threads, ToolEventListener listeners) {
    this.store = store;
    this.policy = policy;
    this.threads = threads;
    this.listeners = listeners;
  }

  @Override
  public String name() {
    return "invoke";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    CallState call = ((RealToolChain) chain).call();
    ToolDefinition tool = chain.tool();
    CallScope scope = Objects.requireNonNull(call.scope, "scope");
    Invoker invoker = Objects.requireNonNull(call.loaded, "loaded").invoker();
    ToolRequest request = chain.request();
    JsonNode output;
    try (BoundedExchange exchange = new BoundedExchange(call.exchange, request, tool.name(), scope, listeners)) {
      ToolContext context =
          new ToolContext(
              request.requestId(), tool.name(), request.requestedBy(),
              new StampedStore(store, Principal.tool(tool.name()), policy, scope),
              scope.resolveReferences(Objects.requireNonNull(call.config, "config")), declaredSecrets(tool, scope), exchange);
      try {
        output = invoke(tool, invoker, request.input().deepCopy(), context, scope);
      } catch (RuntimeException e) {
        throw waitingOr(exchange, e);
      }
      ToolException waits = exchange.waiting();
      if (waits != null) {
        throw waits; // the tool went on after its question was recorded: what it returned is not the call's answer
      }
    } catch (Error e) { // an AssertionError, a StackOverflowError, a LinkageError: the tool failed, not the runner
      call.noteFatal(e);
      throw failed(tool, e);
    }
    if (output == null) {
      throw new ToolException(ToolErrorCode.TOOL_OUTPUT_INVALID, "tool '" + tool.name() + "' returned no output");
    }
    return ToolResponse.success(request.requestId(), tool.name(), output, call.elapsedMs());
  }

  /** Runs the tool's code: directly when it stops by its deadline itself, else on the runner's Java tool threads. */
  private JsonNode invoke(ToolDefinition tool, Invoker invoker, JsonNode input, ToolContext context, CallScope scope) {
    try {
      return invoker.enforcesDeadline() ? invoker.invoke(input, context, scope)
          : threads.run(tool.name(), () -> invoker.invoke(input, context, scope), scope.remaining(), scope.limit());
    } catch (ToolException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool.name() + "' was interrupted");
    } catch (Exception e) {
      throw failed(tool, e);
    }
  }

  /** The call's wait when one of its questions waits for a person, whatever the tool made of it; else {@code e}. */
  private static RuntimeException waitingOr(BoundedExchange exchange, RuntimeException e) {
    ToolException waits = exchange.waiting();
    return waits != null ? waits : e;
  }

  private static ToolException failed(ToolDefinition tool, Throwable cause) {
    return new ToolException(
        ToolErrorCode.TOOL_FAILED,
        "tool '" + tool.name() + "' failed: " + Throwables.describe(cause), cause);
  }

  /** The values of the secrets listed in {@code required_secrets}, by bare name. */
  private static Map<String, String> declaredSecrets(ToolDefinition tool, CallScope scope) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode ref : tool.context().path("required_secrets")) {
      String name = CallScope.nameOf(ref.asText());
      out.put(name, scope.secret(name));
    }
    return out;
  }
}
