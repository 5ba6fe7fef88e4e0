package dev.rcrt.tools.docker.internal;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Docker Engine API client of one runner (docker-java, zerodep transport; {@code DOCKER_HOST}
 * is honoured). The API version is not pinned, so the daemon's own version is used. Every
 * container this runner starts carries the labels {@code dev.rcrt.tool} and {@code
 * dev.rcrt.runner}; all of them are removed when the runner closes or the JVM exits.
 */
final class DockerEngine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DockerEngine.class);
  static final String TOOL_LABEL = "dev.rcrt.tool";
  static final String RUNNER_LABEL = "dev.rcrt.runner";

  private final DockerClient client;
  private final String runnerId = UUID.randomUUID().toString();
  private final Thread cleanup = new Thread(this::removeAll, "rcrt-docker-cleanup");

  DockerEngine() {
    DockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder().build();
    ZerodepDockerHttpClient http =
        new ZerodepDockerHttpClient.Builder()
            .dockerHost(config.getDockerHost())
            .sslConfig(config.getSSLConfig())
            .connectionTimeout(Duration.ofSeconds(5))
            .responseTimeout(Duration.ofMinutes(2))
            .build();
    this.client = DockerClientImpl.getInstance(config, http);
    try {
      client.pingCmd().exec();
    } catch (RuntimeException e) {
      try {
        client.close(); // the next call builds a new one: a daemon that is down must not cost a client per call
      } catch (java.io.IOException | RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw new ToolException(
          ToolErrorCode.TOOL_LOAD_FAILED,
          "no Docker daemon answers at " + config.getDockerHost() + " (" + e.getClass().getSimpleName() + ": " + e.getMessage()
              + "); start Docker or set DOCKER_HOST",
          e);
    }
    Runtime.getRuntime().addShutdownHook(cleanup);
  }

  DockerClient client() {
    return client;
  }

  /** The labels of a container started for {@code tool}. */
  Map<String, String> labels(String tool) {
    return Map.of(TOOL_LABEL, tool, RUNNER_LABEL, runnerId);
  }

  void remove(String containerId) {
    try {
      client.removeContainerCmd(containerId).withForce(true).exec();
    } catch (RuntimeException e) {
      LOG.debug("removing container {} failed: {}", containerId, e.getMessage());
    }
  }

  private void removeAll() {
    try {
      List<Container> ours =
          client.listContainersCmd().withShowAll(true).withLabelFilter(Map.of(RUNNER_LABEL, runnerId)).exec();
      ours.forEach(c -> remove(c.getId()));
    } catch (RuntimeException e) {
      LOG.debug("listing containers to remove failed: {}", e.getMessage());
    }
  }

  @Override
  public void close() {
    removeAll();
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or will run
    }
    try {
      client.close();
    } catch (java.io.IOException e) {
      LOG.debug("closing the Docker client failed", e);
    }
  }
}
