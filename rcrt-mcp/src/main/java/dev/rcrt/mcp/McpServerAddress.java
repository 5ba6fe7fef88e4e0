package dev.rcrt.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.ValidationException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Where an MCP server is: a streamable-HTTP {@code url} with request {@code headers}, or a {@code
 * command} this process starts and speaks to over stdio, with extra {@code env}. The JSON form, as
 * a tool record's {@code implementation.server} holds it: {@code {"url": "https://…/mcp",
 * "headers": {…}}} or {@code {"command": ["npx", "-y", "pkg"], "env": {…}}}; header and env values
 * may be {@code secret:NAME} references, resolved at call time ({@link #resolved}).
 *
 * @param url the endpoint, or null for a command
 * @param headers sent with every HTTP request; copied
 * @param command the program and its arguments, empty for a URL; copied
 * @param env added to the command's environment; copied
 */
public record McpServerAddress(@Nullable URI url, Map<String, String> headers, List<String> command, Map<String, String> env) {

  /** Validates that exactly one of URL and command is given, and copies. */
  public McpServerAddress {
    headers = Map.copyOf(headers);
    command = List.copyOf(command);
    env = Map.copyOf(env);
    if ((url == null) == command.isEmpty()) {
      throw new ValidationException("an MCP server is either a url or a command, not " + (url == null ? "neither" : "both"));
    }
    if (url != null && !"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
      throw new ValidationException("an MCP server url starts with http:// or https://, found '" + url + "'");
    }
  }

  /** A streamable-HTTP server. */
  public static McpServerAddress url(String url) {
    return new McpServerAddress(URI.create(url), Map.of(), List.of(), Map.of());
  }

  /** A server this process starts, such as {@code ["npx", "-y", "@modelcontextprotocol/server-everything"]}. */
  public static McpServerAddress command(List<String> command) {
    return new McpServerAddress(null, Map.of(), command, Map.of());
  }

  /** A URL when {@code text} starts with http:// or https://, else a command split at spaces. */
  public static McpServerAddress parse(String text) {
    return text.startsWith("http://") || text.startsWith("https://") ? url(text) : command(List.of(text.trim().split("\\s+")));
  }

  /**
   * Reads the JSON form.
   *
   * @throws ValidationException naming the field that is missing or of the wrong type
   */
  public static McpServerAddress fromJson(JsonNode server) {
    if (!server.isObject()) {
      throw new ValidationException("implementation.server: expected an object {url, headers} or {command, env}, found " + server.getNodeType());
    }
    List<String> command = new ArrayList<>();
    JsonNode c = server.path("command");
    if (c.isTextual()) {
      command.addAll(List.of(c.asText().trim().split("\\s+")));
      server.path("args").forEach(a -> command.add(a.asText()));
    } else if (c.isArray()) {
      c.forEach(a -> command.add(a.asText()));
    }
    return new McpServerAddress(
        server.path("url").isTextual() ? URI.create(server.get("url").asText()) : null, strings(server.path("headers")), command,
        strings(server.path("env")));
  }

  /** This address with every {@code secret:NAME} header and env value replaced by {@code secrets}' answer. */
  public McpServerAddress resolved(UnaryOperator<String> secrets) {
    Map<String, String> h = new LinkedHashMap<>();
    headers.forEach((k, v) -> h.put(k, secrets.apply(v)));
    Map<String, String> e = new LinkedHashMap<>();
    env.forEach((k, v) -> e.put(k, secrets.apply(v)));
    return new McpServerAddress(url, h, command, e);
  }

  /** The URL, or the command; never a header or env value (they may hold secrets). */
  @Override
  public String toString() {
    return url != null ? url.toString() : String.join(" ", command);
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> out = new LinkedHashMap<>();
    object.properties().forEach(f -> out.put(f.getKey(), Objects.requireNonNullElse(f.getValue().asText(), "")));
    return out;
  }
}
