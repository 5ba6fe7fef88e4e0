package dev.rcrt.tools.docker;

import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRuntime;
import dev.rcrt.tools.docker.internal.ContainerLoader;
import java.util.List;

/**
 * The {@code container} implementation type: a tool packaged as a Docker image, run through the
 * Docker Engine API (docker-java; {@code DOCKER_HOST} is honoured). Found by the {@link
 * dev.rcrt.tools.ToolRunner} through {@link java.util.ServiceLoader} whenever {@code
 * rcrt-tools-docker} is on the classpath.
 *
 * <p>Spec: {@code {image, runtime: "docker", mode?: "server"|"stdio", port, path, command?,
 * memory_mb?, pids_limit?, read_only?, network?}}. {@code server} (the default) starts the
 * container once per tool version, publishes its {@code port} on 127.0.0.1 only and POSTs each
 * input to {@code path}; {@code stdio} runs a fresh container per call, input JSON on stdin, output
 * JSON on stdout. Only images the trust policy allows ({@link
 * dev.rcrt.tools.Capability.ContainerImage}, {@code ToolTrustPolicy.Builder.allowImages}) run, and
 * only if the daemon already has them (nothing is pulled). Containers run hardened: no new
 * privileges, every capability dropped, a read-only root and at most 64 processes unless the spec
 * says otherwise, {@code memory_mb} when given, and in stdio mode no network unless {@code network:
 * true}.
 *
 * <p>Thread-safe. {@link #close()} (the runner's) removes every container this instance started;
 * they are also removed when the JVM exits.
 */
public final class DockerRuntime implements ToolRuntime {
  /** The implementation type this runtime runs: {@value}. */
  public static final String TYPE = "container";

  private final ContainerLoader loader = new ContainerLoader();

  /** A runtime; found through {@link java.util.ServiceLoader}, or given to {@code ToolRunner.Builder.runtime}. */
  public DockerRuntime() {}

  @Override
  public String type() {
    return TYPE;
  }

  /**
   * @throws dev.rcrt.tools.ToolException {@code tool_definition_invalid} for a bad spec, {@code
   *     tool_capability_denied} for an image the policy does not allow, {@code tool_load_failed}
   *     when no daemon answers or it lacks the image
   */
  @Override
  public Loaded load(ToolDefinition definition, Services services) {
    return loader.load(definition, services);
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    return loader.problems(definition);
  }

  @Override
  public void close() {
    loader.close();
  }
}
