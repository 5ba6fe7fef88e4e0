package dev.rcrt.tools.internal.loader.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.ImplementationLoader;
import dev.rcrt.tools.internal.loader.Invoker;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Type {@code http}: {@code {endpoint, method = POST, headers?, auth?{type: bearer|basic|header,
 * secret, username?, header?}, retry?{max_attempts, backoff_ms}}}.
 *
 * <p>POST, PUT and PATCH send the input as the JSON body; GET and DELETE send its top-level scalar
 * fields as query parameters. Header values and {@code auth.secret} may be {@code secret:NAME}
 * references, resolved at call time. The endpoint's resolved addresses must be allowed by the
 * trust policy (no loopback or internal networks by default). The whole exchange, body included,
 * must finish within the tool's time limit, and the body must fit {@code limits.max_response_bytes}
 * (default 10 MiB); past either the exchange is cancelled. A failed call is retried only when the definition has a
 * {@code retry} block, only for connection failures, 429 and 5xx, after {@code backoff_ms} times the
 * attempt number (200 ms by default; waited on the runner's {@code TimeSource}), and only when that
 * wait ends before the deadline.
 */
public final class HttpLoader implements ImplementationLoader {
  private static final List<String> BODY_METHODS = List.of("POST", "PUT", "PATCH");

  private final NetworkGuard network;

  /** @param network checks every endpoint address against the trust policy before each call */
  public HttpLoader(NetworkGuard network) {
    this.network = network;
  }

  /** The checked {@code implementation} of an HTTP tool. */
  private record Spec(URI uri, String method, JsonNode auth, String authType) {
    static Spec of(ToolDefinition definition) {
      String tool = definition.name();
      JsonNode spec = definition.implementation().spec();
      if (!spec.hasNonNull("endpoint")) {
        throw invalid(tool, "endpoint: required, found none (an http or https URL)");
      }
      String endpoint = spec.path("endpoint").asText("");
      URI uri;
      try {
        uri = URI.create(endpoint);
      } catch (IllegalArgumentException e) {
        throw invalid(tool, "endpoint '" + endpoint + "' is not a URL");
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw invalid(tool, "endpoint must be an http or https URL with a host, found '" + endpoint + "'");
      }
      String method = spec.path("method").asText("POST").toUpperCase(Locale.ROOT);
      if (!List.of("GET", "POST", "PUT", "PATCH", "DELETE").contains(method)) {
        throw invalid(tool, "method '" + method + "' is not one of GET, POST, PUT, PATCH, DELETE");
      }
      JsonNode auth = spec.path("auth");
      String authType = auth.path("type").asText("none").toLowerCase(Locale.ROOT);
      if (!List.of("none", "bearer", "basic", "header").contains(authType)) {
        throw invalid(tool, "auth.type '" + authType + "' is not one of bearer, basic, header");
      }
      if (!"none".equals(authType) && !auth.hasNonNull("secret")) {
        throw invalid(tool, "auth type " + authType + " needs auth.secret (a secret:NAME reference)");
      }
      return new Spec(uri, method, auth, authType);
    }
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    try {
      Spec.of(definition);
      return List.of();
    } catch (ToolException e) {
      return List.of(e.getMessage());
    }
  }

  @Override
  public Invoker load(ToolDefinition definition) {
    String tool = definition.name();
    JsonNode spec = definition.implementation().spec();
    Spec checked = Spec.of(definition);
    URI uri = checked.uri();
    String method = checked.method();
    JsonNode auth = checked.auth();
    String authType = checked.authType();
    long maxBytes = definition.maxResponseBytes();
    int attempts = Math.max(1, spec.path("retry").path("max_attempts").asInt(1));
    Duration backoff = Duration.ofMillis(Math.max(0, spec.path("retry").path("backoff_ms").asLong(200)));
    return new Invoker() {
      @Override
      public JsonNode invoke(JsonNode input, ToolContext context, CallScope scope) throws Exception {
        Map<String, String> headers = headers(spec, auth, authType, scope);
        boolean withBody = BODY_METHODS.contains(method);
        URI target = withBody ? uri : withQuery(uri, input);
        String what = "tool '" + tool + "'";
        network.check(what, target);
        for (int attempt = 1; ; attempt++) {
          try {
            return JsonHttp.exchange(network.client(), what, method, target, headers, withBody ? input : null, scope, maxBytes);
          } catch (ToolException e) {
            Duration wait = backoff.multipliedBy(attempt);
            if (!JsonHttp.retriable(e) || attempt >= attempts || scope.remaining().compareTo(wait) <= 0) {
              throw JsonHttp.settled(e);
            }
            scope.time().sleep(wait);
          }
        }
      }

      @Override
      public boolean enforcesDeadline() {
        return true;
      }

      @Override
      public void close() {}
    };
  }

  private static Map<String, String> headers(JsonNode spec, JsonNode auth, String authType, CallScope scope) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> h : spec.path("headers").properties()) {
      String value = h.getValue().asText();
      headers.put(h.getKey(), CallScope.isReference(value) ? scope.secret(value) : value);
    }
    switch (authType) {
      case "bearer" -> headers.put("Authorization", sent(scope, "Bearer " + scope.secret(auth.get("secret").asText())));
      case "basic" -> {
        String user = auth.path("username").asText("");
        String token = user + ":" + scope.secret(auth.get("secret").asText());
        String encoded = sent(scope, Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.UTF_8)));
        headers.put("Authorization", sent(scope, "Basic " + encoded));
      }
      case "header" -> headers.put(auth.path("header").asText("X-API-Key"), scope.secret(auth.get("secret").asText()));
      default -> {}
    }
    return headers;
  }

  /** A header value the runtime built from a secret: remembered, so an endpoint echoing it is scrubbed too. */
  private static String sent(CallScope scope, String value) {
    scope.remember(value);
    return value;
  }

  private static URI withQuery(URI uri, JsonNode input) {
    StringBuilder query = new StringBuilder(uri.getRawQuery() == null ? "" : uri.getRawQuery());
    for (Map.Entry<String, JsonNode> field : input.properties()) {
      if (field.getValue().isValueNode() && !field.getValue().isNull()) {
        query.append(query.length() == 0 ? "" : "&")
            .append(URLEncoder.encode(field.getKey(), StandardCharsets.UTF_8))
            .append('=')
            .append(URLEncoder.encode(field.getValue().asText(), StandardCharsets.UTF_8));
      }
    }
    String base = uri.toString();
    int q = base.indexOf('?');
    return URI.create((q < 0 ? base : base.substring(0, q)) + (query.length() == 0 ? "" : "?" + query));
  }

  private static ToolException invalid(String tool, String what) {
    return new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' implementation: " + what);
  }
}
