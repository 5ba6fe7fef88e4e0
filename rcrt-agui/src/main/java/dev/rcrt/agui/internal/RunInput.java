package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Excerpts;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The parts of an AG-UI {@code RunAgentInput} (protocol 1.0) this server acts on, checked: {@code
 * threadId} and {@code runId} (1 to 128 of {@code A-Z a-z 0-9 . _ : -}); either {@code resume}
 * entries ({@code {interruptId, status: "resolved"|"cancelled", payload?}}), or the newest {@code
 * user} message of {@code messages} ({@code id} and {@code content}: a string, or parts of which the
 * {@code text} ones are read). Earlier messages are not read: the conversation is the thread's
 * records. {@code tools}, {@code context}, {@code state} and {@code forwardedProps} are ignored.
 *
 * @param threadId the conversation, kept as session {@code agui:<threadId>}
 * @param runId the AG-UI run the client asks for
 * @param messageId the user message's id, or null for a resume
 * @param text the user message's text, or null for a resume
 * @param resume the resume entries, empty for a new message
 */
public record RunInput(String threadId, String runId, @Nullable String messageId, @Nullable String text, List<Resume> resume) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /**
   * One answer to an interrupt.
   *
   * @param interruptId the interrupt's id: the call's {@code tool.request.v1} id
   * @param resolved true for {@code resolved}, false for {@code cancelled}
   * @param payload the answer ({@code {approved, reason?}} for an approval, the values asked for a
   *     question), or null
   */
  public record Resume(String interruptId, boolean resolved, @Nullable JsonNode payload) {}

  /**
   * Reads a request body.
   *
   * @throws ValidationException naming the field and what it must be
   */
  public static RunInput parse(byte[] body, int maxMessageChars) {
    JsonNode input;
    try {
      input = RcrtJson.parse(new String(body, java.nio.charset.StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      throw new ValidationException("the body is not a JSON object (an AG-UI RunAgentInput)");
    }
    if (!input.isObject()) {
      throw new ValidationException("the body is not a JSON object (an AG-UI RunAgentInput)");
    }
    String threadId = id(input, "threadId");
    String runId = id(input, "runId");
    List<Resume> resume = new ArrayList<>();
    JsonNode entries = input.path("resume");
    if (!entries.isMissingNode() && !entries.isNull()) {
      if (!entries.isArray()) {
        throw new ValidationException("resume must be an array of {interruptId, status, payload?}");
      }
      for (JsonNode e : entries) {
        String status = e.path("status").asText("");
        if (!status.equals("resolved") && !status.equals("cancelled")) {
          throw new ValidationException("resume[].status must be \"resolved\" or \"cancelled\", found '" + Excerpts.escaped(status, 40) + "'");
        }
        JsonNode payload = e.get("payload");
        resume.add(new Resume(id(e, "interruptId"), status.equals("resolved"), payload == null || payload.isNull() ? null : payload));
      }
    }
    if (!resume.isEmpty()) {
      return new RunInput(threadId, runId, null, null, resume);
    }
    JsonNode messages = input.path("messages");
    JsonNode last = null;
    for (JsonNode m : messages) {
      if ("user".equals(m.path("role").asText())) {
        last = m;
      }
    }
    if (last == null) {
      throw new ValidationException("messages has no user message, and there is no resume: nothing to run");
    }
    String text = text(last.path("content"));
    if (text.isBlank()) {
      throw new ValidationException("the last user message has no text");
    }
    if (text.length() > maxMessageChars) {
      throw new ValidationException("the last user message has " + text.length() + " characters; at most " + maxMessageChars + " are taken");
    }
    return new RunInput(threadId, runId, id(last, "id"), text, List.of());
  }

  private static String text(JsonNode content) {
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode part : content) {
      if ("text".equals(part.path("type").asText())) {
        text.append(text.length() == 0 ? "" : "\n").append(part.path("text").asText());
      }
    }
    return text.toString();
  }

  private static String id(JsonNode node, String field) {
    String value = node.path(field).asText("");
    if (!ID.matcher(value).matches()) {
      throw new ValidationException(field + " must be 1 to 128 of A-Z a-z 0-9 . _ : -, found '" + Excerpts.escaped(value, 40) + "'");
    }
    return value;
  }
}
