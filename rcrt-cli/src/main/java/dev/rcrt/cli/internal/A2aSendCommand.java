package dev.rcrt.cli.internal;

import dev.rcrt.a2a.A2aClient;
import io.a2a.spec.AgentCard;
import io.a2a.spec.EventKind;
import io.a2a.spec.Message;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatus;
import io.a2a.spec.TaskStatusUpdateEvent;
import java.net.URI;
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
      List<StreamingEventKind> events = client.stream(endpoint, said);
      for (StreamingEventKind event : events) {
        if (event instanceof Message m) {
          cli.out().println(A2aClient.text(m.getParts()));
          return 0;
        }
        if (event instanceof TaskStatusUpdateEvent u) {
          note(u.getStatus());
        }
      }
      result = A2aClient.fold(null, events);
      if (result == null) {
        cli.note("the agent's stream ended without a task");
        return 1;
      }
    } else {
      EventKind answer = client.send(endpoint, said, true);
      if (answer instanceof Message m) {
        cli.out().println(A2aClient.text(m.getParts()));
        return 0;
      }
      result = (Task) answer;
    }
    return print(result);
  }

  private int print(Task result) {
    TaskState state = result.getStatus().state();
    cli.out().println(A2aClient.answerText(result));
    cli.note("task " + result.getId() + " " + state.asString() + " (context " + result.getContextId() + ")"
        + (state == TaskState.INPUT_REQUIRED ? "; reply with --task " + result.getId() + " --context " + result.getContextId() : ""));
    return state == TaskState.FAILED || state == TaskState.CANCELED || state == TaskState.REJECTED ? 1 : 0;
  }

  private void note(TaskStatus status) {
    String text = status.message() == null ? "" : ": " + A2aClient.text(status.message().getParts());
    cli.note(status.state().asString() + text);
  }
}
