package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
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
 * A guest's {@code fetch}: only to the hosts the tool's {@code permissions.net} lists and only to
 * addresses the trust policy allows, never following redirects, with the body capped at the tool's
 * {@code limits.max_response_bytes} and the request given only the call's time left.
 */
final class GuestFetch {
  private final JsCode code;
  private final ToolRuntime.Services services;
  private final ToolRuntime.Call call;

  GuestFetch(JsCode code, ToolRuntime.Services services, ToolRuntime.Call call) {
    this.code = code;
    this.services = services;
    this.call = call;
  }

  /**
   * Sends one request.
   *
   * @param left the call's time left, more than zero
   * @return {@code {status, body, headers}}
   * @throws IllegalArgumentException for a host or scheme the tool may not use, or a failed request
   * @throws ToolException for an address the trust policy refuses
   */
  JsonNode send(String url, String method, String headersJson, @Nullable String body, Duration left) {
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
    services.checkConnect("fetch", uri);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(left)
            .method(method.toUpperCase(Locale.ROOT), body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    RcrtJson.parse(headersJson).properties().forEach(h -> request.header(h.getKey(), h.getValue().asText()));
    try {
      HttpResponse<byte[]> response = call.send(request.build(), code.maxResponseBytes());
      ObjectNode out =
          RcrtJson.object().put("status", response.statusCode()).put("body", new String(response.body(), StandardCharsets.UTF_8));
      ObjectNode headers = out.putObject("headers");
      response.headers().map().forEach((k, v) -> headers.put(k, String.join(", ", v)));
      return out;
    } catch (ToolException e) {
      throw new IllegalArgumentException(
          "fetch " + uri + " failed: "
              + (ToolErrorCode.TOOL_TOO_LARGE.is(e.code())
                  ? "the response body is larger than " + code.maxResponseBytes() + " bytes (the tool's limits.max_response_bytes)"
                  : e.getMessage()));
    }
  }
}
