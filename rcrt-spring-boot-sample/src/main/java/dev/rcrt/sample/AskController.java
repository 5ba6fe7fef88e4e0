package dev.rcrt.sample;

import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /ask {"session": "...", "message": "..."}}: one turn of the agent. */
@RestController
public class AskController {
  /** A question in a conversation. */
  public record Question(String session, String message) {}

  /** The agent's answer, its status ({@code SUCCESS}, {@code ROUND_LIMIT}, {@code ERROR}) and how many tool calls it made. */
  public record Answer(String answer, String status, int toolCalls) {}

  private final AgentExecutor agent;

  public AskController(AgentExecutor agent) {
    this.agent = agent;
  }

  @PostMapping("/ask")
  public Answer ask(@RequestBody Question question) {
    AgentResponse response = agent.ask(question.session(), question.message());
    return new Answer(response.message(), response.status().name(), response.toolCalls());
  }
}
