package dev.rcrt.tools.docker.internal;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The last lines a container wrote, flattened to one line, for error messages. */
final class ContainerLogs {
  private static final int MAX = 300;

  private ContainerLogs() {}

  static String tail(DockerEngine docker, String containerId) {
    StringBuilder out = new StringBuilder();
    try {
      docker.client()
          .logContainerCmd(containerId)
          .withStdOut(true)
          .withStdErr(true)
          .withTail(20)
          .exec(
              new ResultCallback.Adapter<Frame>() {
                @Override
                public void onNext(Frame frame) {
                  out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                }
              })
          .awaitCompletion(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      return "(logs unavailable: " + e.getMessage() + ")";
    }
    return flatten(out.toString());
  }

  static String flatten(String text) {
    String flat = text.replaceAll("\\s+", " ").trim();
    return flat.length() <= MAX ? flat : "…" + flat.substring(flat.length() - MAX);
  }
}
