package dev.rcrt.tools.docker.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Type {@code container}: {@code {image, runtime: "docker", port, path, mode?: "server"|"stdio",
 * command?, memory_mb?, pids_limit?, read_only?, network?}}.
 *
 * <p>{@code server} (the default) starts the container once per tool version and POSTs each input
 * to {@code http://127.0.0.1:<published port><path>}. {@code stdio} runs a fresh container per call
 * ({@code run --rm -i}): input JSON on stdin, output JSON on stdout. Only images the trust policy
 * allows ({@link Capability.ContainerImage}) are run. The Docker client is created on the first
 * load and closed with the loader, removing every container it started. Thread-safe.
 */
public final class ContainerLoader implements AutoCloseable {
  private @Nullable DockerEngine engine;
  private boolean closed;

  /** The spec checks that need no Docker and no policy: image, runtime, mode and port. */
  private static void check(String tool, JsonNode spec) {
    if (spec.path("image").asText("").isBlank()) {
      throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' implementation: type container needs 'image'");
    }
    String runtime = spec.path("runtime").asText("docker");
    if (!"docker".equals(runtime)) {
      throw new ToolException(ToolErrorCode.TOOL_UNSUPPORTED, "tool '" + tool + "': container runtime '" + runtime + "' is not supported; use docker");
    }
    String mode = spec.path("mode").asText("server").toLowerCase(Locale.ROOT);
    if (!"server".equals(mode) && !"stdio".equals(mode)) {
      throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' implementation: mode '" + mode + "' is not server or stdio");
    }
    if ("server".equals(mode) && !spec.path("port").canConvertToInt()) {
      throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' implementation: server mode needs 'port'");
    }
  }

  /** What {@link #load} would refuse in the spec itself, found without asking Docker. */
  public java.util.List<String> problems(ToolDefinition definition) {
    try {
      check(definition.name(), definition.implementation().spec());
      return java.util.List.of();
    } catch (ToolException e) {
      return java.util.List.of(e.getMessage());
    }
  }

  /**
   * Checks the spec and the image against the policy, then that the daemon has the image.
   *
   * @throws ToolException {@code tool_definition_invalid}, {@code tool_unsupported}, {@code
   *     tool_capability_denied}, or {@code tool_load_failed} for no daemon or no image
   */
  public ToolRuntime.Loaded load(ToolDefinition definition, ToolRuntime.Services services) {
    String tool = definition.name();
    JsonNode spec = definition.implementation().spec();
    check(tool, spec);
    String image = spec.path("image").asText("");
    Capability.ContainerImage wanted = new Capability.ContainerImage(image);
    if (!services.policy().allows(wanted)) {
      throw new ToolException(
          ToolErrorCode.TOOL_CAPABILITY_DENIED,
          "tool '" + tool + "' wants to run image '" + image + "', which the host does not allow;"
              + " allow it with " + services.policy().howToAllow(wanted));
    }
    Hardening hardening = Hardening.of(spec, definition.context().path("limits"));
    DockerEngine docker = engine();
    try {
      docker.client().inspectImageCmd(image).exec();
    } catch (NotFoundException e) {
      throw new ToolException(
          ToolErrorCode.TOOL_LOAD_FAILED, "tool '" + tool + "': image '" + image + "' is not available to the Docker daemon; pull or build it first");
    }
    String mode = spec.path("mode").asText("server").toLowerCase(Locale.ROOT);
    return "stdio".equals(mode)
        ? new StdioContainer(docker, tool, image, command(spec), hardening)
        : new ServerContainer(
            docker, tool, image, spec.get("port").asInt(), spec.path("path").asText("/"), command(spec), hardening,
            definition.maxResponseBytes());
  }

  private static java.util.@Nullable List<String> command(JsonNode spec) {
    JsonNode c = spec.get("command");
    if (c == null || !c.isArray()) {
      return null;
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    c.forEach(part -> out.add(part.asText()));
    return out;
  }

  /** The client, created on first use; a failure (no daemon) is not kept, so a later load tries again. */
  private synchronized DockerEngine engine() {
    if (closed) {
      throw new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "the Docker runtime is closed (its tool runner was closed)");
    }
    if (engine == null) {
      engine = new DockerEngine();
    }
    return engine;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (engine != null) {
      engine.close();
      engine = null;
    }
  }
}
