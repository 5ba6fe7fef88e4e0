package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRuntime;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/** A {@link ToolRuntime} from outside, as one of the runner's implementation loaders. */
public final class RuntimeLoader implements ImplementationLoader, AutoCloseable {
  private final ToolRuntime runtime;
  private final ToolRuntime.Services services;

  public RuntimeLoader(ToolRuntime runtime, ToolTrustPolicy policy, NetworkGuard network) {
    this.runtime = runtime;
    this.services = new ToolRuntime.Services() {
      @Override
      public ToolTrustPolicy policy() {
        return policy;
      }

      @Override
      public void checkConnect(String what, URI uri) {
        network.check(what, uri);
      }
    };
  }

  @Override
  public Invoker load(ToolDefinition definition) {
    ToolRuntime.Loaded loaded = runtime.load(definition, services);
    return new Invoker() {
      @Override
      public JsonNode invoke(JsonNode input, ToolContext context, CallScope scope) throws Exception {
        return loaded.call(input, new ToolRuntime.Call() {
          @Override
          public ToolContext context() {
            return context;
          }

          @Override
          public Duration remaining() {
            return scope.remaining();
          }

          @Override
          public String secret(String nameOrReference) {
            return scope.secret(nameOrReference);
          }
        });
      }

      @Override
      public boolean enforcesDeadline() {
        return false; // the chain's watchdog interrupts the calling thread
      }

      @Override
      public void close() {
        loaded.close();
      }
    };
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    return runtime.problems(definition);
  }

  @Override
  public void close() {
    runtime.close();
  }
}
