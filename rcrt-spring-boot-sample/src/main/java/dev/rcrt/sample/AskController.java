package dev.rcrt.sample;

import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code POST /ask {"session": "...", "message": "..."}}: one turn of the agent. A request without
 * both fields, with a session id other than letters, digits, {@code .}, {@code _}, {@code :} and
 * {@code -} (at most 128), or with a body over {@value #MAX_BODY_BYTES} bytes or a message over
 * {@value #MAX_MESSAGE_CHARS} characters, is refused (400, 413) before the agent sees it.
 */
@RestController
public class AskController {
  /** The largest request body read: 64 KiB. */
  static final int MAX_BODY_BYTES = 64 * 1024;
  /** The longest message handed to the agent. */
  static final int MAX_MESSAGE_CHARS = 16_000;

  /** A question in a conversation. */
  public record Question(String session, String message) {}

  /** The agent's answer, its status ({@code SUCCESS}, {@code ROUND_LIMIT}, {@code ERROR}) and how many tool calls it made. */
  public record Answer(String answer, String status, int toolCalls) {}

  private final AgentExecutor agent;

  public AskController(AgentExecutor agent) {
    this.agent = agent;
  }

  @PostMapping("/ask")
  public Answer ask(HttpServletRequest request) throws IOException {
    Question question = read(request);
    if (question.session() == null || !question.session().matches("[A-Za-z0-9._:-]{1,128}")) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
          "session: required, 1 to 128 letters, digits, '.', '_', ':' or '-'");
    }
    if (question.message() == null || question.message().isBlank()) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "message: required, the user's question");
    }
    if (question.message().length() > MAX_MESSAGE_CHARS) {
      throw new ResponseStatusException(HttpStatus.PAYLOAD_TOO_LARGE, "message: at most " + MAX_MESSAGE_CHARS + " characters");
    }
    AgentResponse response = agent.ask(question.session(), question.message());
    return new Answer(response.message(), response.status().name(), response.toolCalls());
  }

  /** The question, read only up to {@link #MAX_BODY_BYTES}: a larger body is refused from its length, or once reading passes it. */
  private static Question read(HttpServletRequest request) throws IOException {
    if (request.getContentLengthLong() > MAX_BODY_BYTES) {
      throw new ResponseStatusException(HttpStatus.PAYLOAD_TOO_LARGE, "the request body is over " + MAX_BODY_BYTES + " bytes");
    }
    byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES + 1);
    if (body.length > MAX_BODY_BYTES) {
      throw new ResponseStatusException(HttpStatus.PAYLOAD_TOO_LARGE, "the request body is over " + MAX_BODY_BYTES + " bytes");
    }
    try {
      return JSON.readValue(body, Question.class);
    } catch (IOException e) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "the body must be JSON: {\"session\": \"...\", \"message\": \"...\"}");
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
}
