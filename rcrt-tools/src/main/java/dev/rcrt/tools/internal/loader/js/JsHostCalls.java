package dev.rcrt.tools.internal.loader.js;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Sensitivity;
import dev.rcrt.tools.internal.loader.http.BoundedBody;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The host's side of one call's {@code context.api} and {@code fetch}: a worker asks, this answers
 * with the calling tool's store view (writes stamped {@code tool:<name>}; tools, configs, agents and
 * schema definitions refused unless the trust policy trusts the tool) and, for {@code fetch}, only
 * the hosts the tool's {@code permissions.net} lists and only addresses the trust policy allows,
 * never following redirects, with the body capped at the tool's {@code limits.max_response_bytes}.
 *
 * <p>All of it runs under the call's deadline: no request starts once it has passed, {@code fetch}
 * gets only the time left, and store searches take only selector paths whose cost is bounded (see
 * {@code ContextPaths}). Used by one call on one thread.
 */
final class JsHostCalls {
  private final JsCode code;
  private final NetworkGuard network;
  private final BreadcrumbStore store;
  private final long deadlineNanos;

  JsHostCalls(JsCode code, NetworkGuard network, BreadcrumbStore store, long deadlineNanos) {
    this.code = code;
    this.network = network;
    this.store = store;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Answers one request from the guest.
   *
   * @param args the request's arguments as the worker sent them
   * @return {@code {"value": …}} or {@code {"error": "…"}}, which the guest sees as a rejected Promise
   */
  JsonNode answer(String op, JsonNode args) {
    if (remaining().isZero()) {
      return RcrtJson.object().put("error", "the call's time limit has passed; no more host calls");
    }
    try {
      JsonNode value =
          switch (op) {
            case "get" -> get(args.path(0).asText());
            case "search" -> search(args.path(0).asText(), args.path(1).asInt(50));
            case "create" -> create(args.path(0).asText());
            case "fetch" -> fetch(args.path(0).asText(), args.path(1).asText("GET"), args.path(2).asText("{}"),
                args.path(3).isTextual() ? args.path(3).asText() : null);
            default -> throw new IllegalArgumentException("no host operation '" + op + "'");
          };
      return RcrtJson.object().set("value", value);
    } catch (RcrtException | IllegalArgumentException e) {
      return RcrtJson.object().put("error", e.getMessage());
    }
  }

  /** Time left before the call's deadline; zero when passed. */
  Duration remaining() {
    return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
  }

  private JsonNode get(String id) {
    return store.get(id).map(JsHostCalls::visible).orElse(RcrtJson.mapper().nullNode());
  }

  private JsonNode search(String selectorJson, int limit) {
    ArrayNode out = RcrtJson.mapper().createArrayNode();
    for (Breadcrumb b : store.search(Selector.fromJson(RcrtJson.parse(selectorJson)), Math.max(1, Math.min(limit, 500)), 0)) {
      out.add(visible(b));
    }
    return out;
  }

  private JsonNode create(String payloadJson) {
    BreadcrumbCreate payload;
    try {
      payload = RcrtJson.mapper().treeToValue(RcrtJson.parse(payloadJson), BreadcrumbCreate.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("createBreadcrumb: " + (e.getCause() != null ? e.getCause().getMessage() : e.getOriginalMessage()));
    }
    return visible(store.create(payload));
  }

  /** A breadcrumb as tools see it: the context of a secret-sensitivity record is left out. */
  private static JsonNode visible(Breadcrumb b) {
    ObjectNode json = RcrtJson.mapper().valueToTree(b);
    if (b.sensitivity() == Sensitivity.SECRET) {
      json.remove("context");
    }
    return json;
  }

  private JsonNode fetch(String url, String method, String headersJson, @Nullable String body) {
    Set<String> allowed = code.allowedHosts();
    URI uri = URI.create(url);
    String host = uri.getHost() == null ? "" : uri.getHost();
    String hostPort = uri.getPort() < 0 ? host : host + ":" + uri.getPort();
    if (allowed == null || !(allowed.contains("*") || allowed.contains(host) || allowed.contains(hostPort))) {
      throw new IllegalArgumentException(
          "fetch to '" + hostPort + "' is not allowed; this tool's permissions.net allows " + (allowed == null ? "no hosts" : List.copyOf(allowed)));
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("fetch supports http and https URLs only, not '" + uri.getScheme() + "'");
    }
    network.check("fetch", uri);
    Duration left = remaining().isZero() ? Duration.ofMillis(1) : remaining();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(left)
            .method(method.toUpperCase(Locale.ROOT), body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    RcrtJson.parse(headersJson).properties().forEach(h -> request.header(h.getKey(), h.getValue().asText()));
    try {
      HttpResponse<byte[]> response = BoundedBody.send(network.client(), request.build(), left, code.maxResponseBytes());
      ObjectNode out =
          RcrtJson.object().put("status", response.statusCode()).put("body", new String(response.body(), StandardCharsets.UTF_8));
      ObjectNode headers = out.putObject("headers");
      response.headers().map().forEach((k, v) -> headers.put(k, String.join(", ", v)));
      return out;
    } catch (BoundedBody.Failure f) {
      throw new IllegalArgumentException(
          "fetch " + uri + " failed: " + f.getMessage()
              + (f.kind() == BoundedBody.Failure.Kind.TOO_LARGE ? " (the tool's limits.max_response_bytes)" : ""));
    }
  }
}
