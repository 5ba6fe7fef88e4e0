package dev.rcrt.tools.docker.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A container started once and reused: its port is published on 127.0.0.1 only, each call POSTs
 * the input JSON to it (the answer capped at the tool's {@code limits.max_response_bytes}), and while the server inside is still starting a refused connection is
 * retried until the call's deadline. A container that died is reported with its exit code and the
 * end of its log, and started again on the next call.
 */
final class ServerContainer implements ToolRuntime.Loaded {
  private static final Duration RETRY = Duration.ofMillis(50);

  private final DockerEngine docker;
  private final String tool;
  private final String image;
  private final int port;
  private final String path;
  private final @Nullable List<String> command;
  private final Hardening hardening;
  private final long maxResponseBytes;
  private @Nullable String containerId;
  private int hostPort;

  ServerContainer(
      DockerEngine docker, String tool, String image, int port, String path, @Nullable List<String> command, Hardening hardening,
      long maxResponseBytes) {
    this.docker = docker;
    this.tool = tool;
    this.image = image;
    this.port = port;
    this.path = path.startsWith("/") ? path : "/" + path;
    this.command = command;
    this.hardening = hardening;
    this.maxResponseBytes = maxResponseBytes;
  }

  @Override
  public JsonNode call(JsonNode input, ToolRuntime.Call scope) throws InterruptedException {
    URI uri = endpoint();
    String what = "tool '" + tool + "'";
    while (true) {
      try {
        return scope.exchangeJson("POST", uri, Map.of(), input, maxResponseBytes);
      } catch (ToolException e) {
        if (!ToolErrorCode.TOOL_UNREACHABLE.is(e.code())) {
          throw e;
        }
        exitedOrNull();
        if (scope.remaining().compareTo(RETRY) <= 0) {
          throw new ToolException(ToolErrorCode.TOOL_TIMEOUT, what + " timed out after " + scope.limit().toMillis()
              + " ms: the container's server at " + uri + " did not accept a connection");
        }
        Thread.sleep(RETRY.toMillis());
      }
    }
  }

  /** The URL of the running container, starting it first if needed. */
  private synchronized URI endpoint() {
    if (containerId == null) {
      start();
    }
    return URI.create("http://127.0.0.1:" + hostPort + path);
  }

  private void start() {
    ExposedPort exposed = ExposedPort.tcp(port);
    HostConfig host =
        hardening.apply(HostConfig.newHostConfig().withPortBindings(new PortBinding(Ports.Binding.bindIp("127.0.0.1"), exposed)), true);
    CreateContainerCmd create =
        docker.client().createContainerCmd(image).withLabels(docker.labels(tool)).withExposedPorts(exposed).withHostConfig(host);
    if (command != null) {
      create.withCmd(command);
    }
    String id = create.exec().getId();
    containerId = id;
    try {
      docker.client().startContainerCmd(id).exec();
      InspectContainerResponse info = docker.client().inspectContainerCmd(id).exec();
      Ports.Binding[] bindings = info.getNetworkSettings().getPorts().getBindings().get(exposed);
      if (bindings == null || bindings.length == 0) {
        exitedOrNull();
        throw new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "tool '" + tool + "': container of image '" + image + "' published no port " + port);
      }
      hostPort = Integer.parseInt(bindings[0].getHostPortSpec());
    } catch (ToolException e) {
      close();
      throw e;
    } catch (RuntimeException e) {
      close();
      throw new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "tool '" + tool + "': container of image '" + image + "' did not start: " + e.getMessage(), e);
    }
  }

  /** Throws, naming the exit code and the log tail, when the container is no longer running. */
  private synchronized void exitedOrNull() {
    if (containerId == null) {
      return;
    }
    InspectContainerResponse.ContainerState state = docker.client().inspectContainerCmd(containerId).exec().getState();
    if (Boolean.TRUE.equals(state.getRunning())) {
      return;
    }
    String logs = ContainerLogs.tail(docker, containerId);
    docker.remove(containerId);
    containerId = null;
    throw new ToolException(
        ToolErrorCode.TOOL_FAILED,
        "tool '" + tool + "' container exited with code " + state.getExitCodeLong() + (logs.isEmpty() ? "" : ": " + logs));
  }

  @Override
  public boolean enforcesDeadline() {
    return true;
  }

  @Override
  public synchronized void close() {
    if (containerId != null) {
      docker.remove(containerId);
      containerId = null;
    }
  }
}
