package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRuntime;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.http.JsonHttp;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.Predicate;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A {@link ToolRuntime} as one of the runner's implementation loaders. */
public final class RuntimeLoader implements ImplementationLoader, AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RuntimeLoader.class);
  private final ToolRuntime runtime;
  private final ToolRuntime.Services services;
  private final NetworkGuard network;

  /**
   * How many open runners use each runtime instance: a runtime a host hands several runners is
   * closed when the last of them closes. Entries leave with their last user.
   */
  private static final Map<ToolRuntime, Integer> USERS = new IdentityHashMap<>();

  public RuntimeLoader(ToolRuntime runtime, BreadcrumbStore store, Duration defaultTimeout, ToolTrustPolicy policy, NetworkGuard network) {
    this.runtime = runtime;
    synchronized (USERS) {
      USERS.merge(runtime, 1, Integer::sum);
    }
    this.network = network;
    this.services = new ToolRuntime.Services() {
      @Override
      public ToolTrustPolicy policy() {
        return policy;
      }

      @Override
      public BreadcrumbStore store() {
        return store;
      }

      @Override
      public Duration defaultTimeout() {
        return defaultTimeout;
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
        return loaded.call(input, new Call(context, scope));
      }

      @Override
      public boolean enforcesDeadline() {
        return loaded.enforcesDeadline();
      }

      @Override
      public void close() {
        try {
          loaded.close();
        } catch (Throwable e) {
          Throwables.rethrowIfFatal(e);
          LOG.warn("closing tool '{}' failed: {}", definition.name(), e.toString());
        }
      }
    };
  }

  /** One call as a runtime sees it: the scope's deadline and secrets, and the runner's HTTP. */
  private final class Call implements ToolRuntime.Call {
    private final ToolContext context;
    private final CallScope scope;
    private final String what;

    Call(ToolContext context, CallScope scope) {
      this.context = context;
      this.scope = scope;
      this.what = "tool '" + context.tool() + "'";
    }

    @Override
    public ToolContext context() {
      return context;
    }

    @Override
    public Duration remaining() {
      return scope.remaining();
    }

    @Override
    public Duration limit() {
      return scope.limit();
    }

    @Override
    public dev.rcrt.core.TimeSource time() {
      return scope.time();
    }

    @Override
    public String secret(String nameOrReference) {
      return scope.secret(nameOrReference);
    }

    @Override
    public String scrub(String text) {
      return scope.scrub(text);
    }

    @Override
    public HttpResponse<byte[]> send(HttpRequest request, long maxBodyBytes) {
      return JsonHttp.send(network.client(), what, request, scope, maxBodyBytes);
    }

    @Override
    public HttpResponse<byte[]> send(HttpRequest request, long maxBodyBytes, Duration within) {
      return JsonHttp.send(network.client(), what, request, scope, maxBodyBytes, within, null);
    }

    @Override
    public HttpResponse<byte[]> sendEvents(HttpRequest request, long maxBodyBytes, Duration within, Predicate<String> stopAt) {
      return JsonHttp.send(network.client(), what, request, scope, maxBodyBytes, within, java.util.Objects.requireNonNull(stopAt, "stopAt"));
    }

    @Override
    public JsonNode exchangeJson(String method, URI uri, Map<String, String> headers, @Nullable JsonNode body, long maxBodyBytes) {
      try {
        return JsonHttp.exchange(network.client(), what, method, uri, headers, body, scope, maxBodyBytes);
      } catch (dev.rcrt.tools.ToolException e) {
        throw JsonHttp.settled(e);
      }
    }
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    return runtime.problems(definition);
  }

  /** Lets go of the runtime; the last runner using it closes it. Never throws but a fatal error. */
  @Override
  public void close() {
    boolean last;
    synchronized (USERS) {
      last = USERS.merge(runtime, -1, Integer::sum) <= 0;
      if (last) {
        USERS.remove(runtime);
      }
    }
    if (last) {
      try {
        runtime.close();
      } catch (Throwable e) {
        Throwables.rethrowIfFatal(e);
        LOG.warn("closing runtime '{}' failed: {}", runtime.type(), e.toString());
      }
    }
  }
}
