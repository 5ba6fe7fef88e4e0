package dev.rcrt.tools.internal.loader.container;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.internal.loader.ImplementationLoader;
import dev.rcrt.tools.internal.loader.Invoker;
import dev.rcrt.tools.internal.loader.LazyResource;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Type {@code container}: {@code {image, runtime: "docker", port, path, mode?: "server"|"stdio",
 * command?, memory_mb?, pids_limit?, read_only?, network?}}.
 *
 * <p>{@code server} (the default) starts the container once per tool version and POSTs each input
 * to {@code http://127.0.0.1:<published port><path>}. {@code stdio} runs a fresh container per call
 * ({@code run --rm -i}): input JSON on stdin, output JSON on stdout. Only images the trust policy
 * allows ({@link Capability.ContainerImage}) are run.
 */
public final class ContainerLoader implements ImplementationLoader, AutoCloseable {
  private final ToolTrustPolicy policy;
  private final LazyResource<DockerEngine> engine =
      new LazyResource<>(DockerEngine::new, "container tools need docker-java (com.github.docker-java) on the classpath");

  public ContainerLoader(ToolTrustPolicy policy) {
    this.policy = policy;
  }

  /** The spec checks that need no Docker and no policy: image, runtime, mode and port. */
  private static void check(String tool, JsonNode spec) {
    if (spec.path("image").asText("").isBlank()) {
      throw new ToolException("tool_definition_invalid", "tool '" + tool + "' implementation: type container needs 'image'");
    }
    String runtime = spec.path("runtime").asText("docker");
    if (!"docker".equals(runtime)) {
      throw new ToolException("tool_unsupported", "tool '" + tool + "': container runtime '" + runtime + "' is not supported; use docker");
    }
    String mode = spec.path("mode").asText("server").toLowerCase(Locale.ROOT);
    if (!"server".equals(mode) && !"stdio".equals(mode)) {
      throw new ToolException("tool_definition_invalid", "tool '" + tool + "' implementation: mode '" + mode + "' is not server or stdio");
    }
    if ("server".equals(mode) && !spec.path("port").canConvertToInt()) {
      throw new ToolException("tool_definition_invalid", "tool '" + tool + "' implementation: server mode needs 'port'");
    }
  }

  @Override
  public java.util.List<String> problems(ToolDefinition definition) {
    try {
      check(definition.name(), definition.implementation().spec());
      return java.util.List.of();
    } catch (ToolException e) {
      return java.util.List.of(e.getMessage());
    }
  }

  @Override
  public Invoker load(ToolDefinition definition) {
    String tool = definition.name();
    JsonNode spec = definition.implementation().spec();
    check(tool, spec);
    String image = spec.path("image").asText("");
    if (!policy.allows(new Capability.ContainerImage(image))) {
      throw new ToolException(
          "tool_capability_denied",
          "tool '" + tool + "' wants to run image '" + image + "', which the host does not allow;"
              + " allow it with ToolTrustPolicy.builder().allowImages(\"" + image + "\")");
    }
    Hardening hardening = Hardening.of(spec, definition.context().path("limits"));
    DockerEngine docker = engine();
    try {
      docker.client().inspectImageCmd(image).exec();
    } catch (NotFoundException e) {
      throw new ToolException(
          "tool_load_failed", "tool '" + tool + "': image '" + image + "' is not available to the Docker daemon; pull or build it first");
    }
    String mode = spec.path("mode").asText("server").toLowerCase(Locale.ROOT);
    return "stdio".equals(mode)
        ? new StdioContainer(docker, tool, image, command(spec), hardening)
        : new ServerContainer(docker, tool, image, spec.get("port").asInt(), spec.path("path").asText("/"), command(spec), hardening);
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

  private DockerEngine engine() {
    return engine.get();
  }

  @Override
  public void close() {
    engine.close();
  }
}
