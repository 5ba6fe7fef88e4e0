package dev.rcrt.cli.internal;

import dev.rcrt.a2a.A2aClient;
import io.a2a.spec.AgentCard;
import io.a2a.spec.Artifact;
import io.a2a.spec.EventKind;
import io.a2a.spec.Message;
import io.a2a.spec.Part;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatus;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "send",
    description = {
      "Send MESSAGE to an A2A agent and print its answer: the task's artifacts (or the agent's message when the",
      "task waits for input). The task's state and ids go to stderr; reply to a task that asks for input with",
      "--task ID. Exit status 1 when the task failed, was cancelled or rejected."
    })
public final class A2aSendCommand implements Callable<Integer> {
  private final Cli cli;

  @Mixin A2aPeer peer;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "MESSAGE", description = "The message; several words are joined with spaces.")
  List<String> message = List.of();

  @Option(names = "--context", paramLabel = "ID", description = "The contextId to go on in (default: a new context).")
  @Nullable String context;

  @Option(names = "--task", paramLabel = "ID", description = "The taskId of a task that waits for input, to reply to it.")
  @Nullable String task;

  @Option(names = "--stream", description = "Use message/stream and print each status update to stderr as it arrives.")
  boolean stream;

  public A2aSendCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    A2aClient client = peer.client(cli);
    AgentCard card = client.card(peer.cardUrl());
    URI endpoint = URI.create(card.url());
    Message said = A2aClient.message(String.join(" ", message), context, task, Map.of());
    Task result;
    if (stream) {
      result = null;
      for (StreamingEventKind event : client.stream(endpoint, said)) {
        if (event instanceof Task t) {
          result = t;
        } else if (event instanceof TaskStatusUpdateEvent u && result != null) {
          note(u.getStatus());
          result = new Task.Builder(result).status(u.getStatus()).build();
        } else if (event instanceof TaskArtifactUpdateEvent a && result != null) {
          result = io.a2a.util.Utils.appendArtifactToTask(result, a, result.getId());
        } else if (event instanceof Message m) {
          cli.out().println(text(m.getParts()));
          return 0;
        }
      }
      if (result == null) {
        cli.note("the agent's stream ended without a task");
        return 1;
      }
    } else {
      EventKind answer = client.send(endpoint, said, true);
      if (answer instanceof Message m) {
        cli.out().println(text(m.getParts()));
        return 0;
      }
      result = (Task) answer;
    }
    return print(result);
  }

  private int print(Task result) {
    TaskState state = result.getStatus().state();
    List<String> texts = new ArrayList<>();
    for (Artifact a : result.getArtifacts() == null ? List.<Artifact>of() : result.getArtifacts()) {
      texts.add(text(a.parts()));
    }
    String status = result.getStatus().message() == null ? "" : text(result.getStatus().message().getParts());
    if (state == TaskState.INPUT_REQUIRED || texts.isEmpty()) {
      cli.out().println(status);
    } else {
      cli.out().println(String.join("\n", texts));
    }
    cli.note("task " + result.getId() + " " + state.asString() + " (context " + result.getContextId() + ")"
        + (state == TaskState.INPUT_REQUIRED ? "; reply with --task " + result.getId() + " --context " + result.getContextId() : ""));
    return state == TaskState.FAILED || state == TaskState.CANCELED || state == TaskState.REJECTED ? 1 : 0;
  }

  private void note(TaskStatus status) {
    String text = status.message() == null ? "" : ": " + text(status.message().getParts());
    cli.note(status.state().asString() + text);
  }

  private static String text(List<Part<?>> parts) {
    List<String> out = new ArrayList<>();
    for (Part<?> p : parts) {
      if (p instanceof TextPart t) {
        out.add(t.getText());
      }
    }
    return String.join("\n", out);
  }
}
