package dev.rcrt.tools.docker.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.exception.DockerClientException;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.StreamType;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A one-shot container per call, like {@code docker run --rm -i}: the input JSON goes to stdin
 * through an attach that is established before the container starts, the output JSON is read from
 * stdout in the container's log once it exits, and a non-zero exit is an error carrying stderr. The
 * container is killed at the call's deadline and always removed.
 */
final class StdioContainer implements ToolRuntime.Loaded {
  private final DockerEngine docker;
  private final String tool;
  private final String image;
  private final @Nullable List<String> command;
  private final Hardening hardening;

  StdioContainer(DockerEngine docker, String tool, String image, @Nullable List<String> command, Hardening hardening) {
    this.docker = docker;
    this.tool = tool;
    this.image = image;
    this.command = command;
    this.hardening = hardening;
  }

  @Override
  public JsonNode call(JsonNode input, ToolRuntime.Call scope) throws Exception {
    CreateContainerCmd create =
        docker.client()
            .createContainerCmd(image)
            .withLabels(docker.labels(tool))
            .withStdinOpen(true)
            .withStdInOnce(true)
            .withAttachStdin(true)
            .withAttachStdout(true)
            .withAttachStderr(true)
            .withHostConfig(hardening.apply(HostConfig.newHostConfig(), hardening.network()));
    if (command != null) {
      create.withCmd(command);
    }
    String id = create.exec().getId();
    try {
      byte[] in = (RcrtJson.write(input) + "\n").getBytes(StandardCharsets.UTF_8);
      CountDownLatch attached = new CountDownLatch(1);
      CountDownLatch written = new CountDownLatch(1);
      InputStream body =
          new ByteArrayInputStream(in) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
              int n = super.read(b, off, len);
              if (n == -1) {
                written.countDown();
              }
              return n;
            }
          };
      try (ResultCallback.Adapter<Frame> stdin =
          docker.client()
              .attachContainerCmd(id)
              .withStdIn(body)
              .withFollowStream(true)
              .exec(
                  new ResultCallback.Adapter<>() {
                    @Override
                    public void onStart(Closeable stream) {
                      super.onStart(stream);
                      attached.countDown();
                    }
                  })) {
        attached.await(scope.remaining().toMillis(), TimeUnit.MILLISECONDS);
        docker.client().startContainerCmd(id).exec();
        // The transport never half-closes the attach socket, so stdin would never reach EOF.
        // With StdinOnce, Docker closes the container's stdin when the attached client leaves:
        // leave as soon as the whole input has been written (the output is read from the log).
        written.await(scope.remaining().toMillis(), TimeUnit.MILLISECONDS);
        stdin.close();
        int code;
        try {
          code = docker.client().waitContainerCmd(id).start().awaitStatusCode(scope.remaining().toMillis(), TimeUnit.MILLISECONDS);
        } catch (DockerClientException timeout) {
          throw new ToolException(ToolErrorCode.TOOL_TIMEOUT, "tool '" + tool + "' timed out after " + scope.limit().toMillis() + " ms; its container was killed");
        }
        Output output = output(id);
        if (code != 0) {
          String err = ContainerLogs.flatten(output.stderr());
          throw new ToolException(
              ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' container exited with code " + code + (err.isEmpty() ? "" : ": " + err));
        }
        String out = output.stdout().trim();
        if (out.isEmpty()) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' container exited with code 0 but wrote nothing on stdout; it must print the output JSON");
        }
        try {
          return RcrtJson.parse(out);
        } catch (ValidationException e) {
          throw new ToolException(
              ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' container wrote no JSON on stdout (" + e.getMessage() + "): " + ContainerLogs.flatten(out));
        }
      }
    } finally {
      docker.remove(id);
    }
  }

  private record Output(String stdout, String stderr) {}

  /** What the exited container wrote, read from its log (complete, unlike a racing attach stream). */
  private Output output(String id) throws InterruptedException {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    docker.client()
        .logContainerCmd(id)
        .withStdOut(true)
        .withStdErr(true)
        .exec(
            new ResultCallback.Adapter<Frame>() {
              @Override
              public void onNext(Frame frame) {
                (frame.getStreamType() == StreamType.STDERR ? stderr : stdout).writeBytes(frame.getPayload());
              }
            })
        .awaitCompletion(10, TimeUnit.SECONDS);
    return new Output(stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
  }

  @Override
  public boolean enforcesDeadline() {
    return true;
  }

}
