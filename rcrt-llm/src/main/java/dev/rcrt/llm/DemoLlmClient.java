package dev.rcrt.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An offline demonstration model: a few keyword rules that call the SDK's builtin tools through the
 * real tool-call loop, so a new user sees the whole path (tool discovery, a recorded round, the
 * call, the answer from its result) with no network and no key. It is what {@code ./rcrt chat}
 * answers with when no endpoint and no key are configured, and what the getting-started project
 * uses offline. It is a demonstration, never a stand-in for a real model.
 *
 * <p>What it understands, in a user message: arithmetic ({@code "What is 17 * 23?"}, calls {@code
 * calculator}), {@code random} numbers, {@code wait}/{@code timer}, {@code echo …}/{@code say …},
 * {@code remember …}/{@code note …} ({@code breadcrumb-create} of a {@code note.v1}), and {@code
 * search}/{@code notes} ({@code breadcrumb-search}). It calls only tools offered in the request (by
 * their OpenAI function names) and answers in English from the tool results it is sent; anything
 * else gets a help text naming the tools offered. Every answer names the model {@value #MODEL}, so
 * a recorded {@code agent.response.v1} says that no real model answered; a streamed request gets
 * the text in one piece. It never throws for a well-formed request. Thread-safe.
 */
public final class DemoLlmClient implements LlmClient {
  /** The model name every answer carries. */
  public static final String MODEL = "offline-demo";

  /** A run of numbers, operators, parentheses and calculator function names. */
  private static final Pattern ARITHMETIC_RUN =
      Pattern.compile("(?:\\s*(?:\\d+(?:\\.\\d+)?|sqrt|cbrt|pow|abs|log10|log|sin|cos|tan|pi|[-+*/^%×÷(),]))+");
  /** An operator between operands ({@code 17*23}, {@code 2)*4}), or a function call: not a hyphen in a name ({@code BOOK-7}). */
  private static final Pattern OPERATOR_OR_FUNCTION = Pattern.compile("[\\d)][-+*/^%×÷][-\\d(a-z]|[a-z]\\(");
  private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?");

  /** The builtin tools the rules call. */
  private static final Set<String> BUILTINS = Set.of("calculator", "random", "timer", "echo", "breadcrumb-create", "breadcrumb-search");

  private final AtomicInteger calls = new AtomicInteger();

  /** A demo model; it numbers its tool calls ({@code call_demo_1}, …) from one. */
  public DemoLlmClient() {}

  @Override
  public ChatResponse chat(ChatRequest request) {
    return answer(request).withModel(MODEL);
  }

  private ChatResponse answer(ChatRequest request) {
    List<ChatMessage> messages = request.messages();
    ChatMessage last = messages.get(messages.size() - 1);
    if ("tool".equals(last.role())) {
      return ChatResponse.text(describeResults(messages));
    }
    Set<String> offered = new HashSet<>(request.tools().findValuesAsText("name"));
    String text = last.content() == null ? "" : last.content();
    ToolCall call = chooseTool(text, offered);
    if (call != null) {
      return ChatResponse.toolCalls(call);
    }
    return ChatResponse.text(help(offered));
  }

  private @Nullable ToolCall chooseTool(String text, Set<String> offered) {
    String lower = text.toLowerCase(Locale.ROOT);
    ObjectNode args = RcrtJson.object();
    if (offered.contains("random") && lower.contains("random")) {
      List<Double> numbers = numbers(lower);
      if (numbers.size() >= 2) {
        args.put("min", numbers.get(numbers.size() - 2)).put("max", numbers.get(numbers.size() - 1));
      }
      Matcher count = Pattern.compile("(\\d+)\\s+random").matcher(lower);
      if (count.find()) {
        args.put("count", Integer.parseInt(count.group(1)));
      }
      return call("random", args);
    }
    if (offered.contains("timer") && (lower.contains("wait") || lower.contains("timer"))) {
      List<Double> numbers = numbers(lower);
      return call("timer", args.put("seconds", numbers.isEmpty() ? 1 : numbers.get(0)));
    }
    if (offered.contains("echo") && (lower.startsWith("echo ") || lower.startsWith("say "))) {
      return call("echo", args.put("message", text.substring(text.indexOf(' ') + 1).trim()));
    }
    if (offered.contains("breadcrumb-create") && (lower.startsWith("remember ") || lower.startsWith("note "))) {
      String note = text.substring(text.indexOf(' ') + 1).trim();
      args.put("schema_name", "note.v1").put("title", note.length() > 40 ? note.substring(0, 40) : note);
      args.putArray("tags").add("note");
      args.putObject("context").put("text", note);
      return call("breadcrumb-create", args);
    }
    if (offered.contains("breadcrumb-search") && (lower.contains("search") || lower.contains("notes") || lower.contains("breadcrumbs"))) {
      if (lower.contains("note")) {
        args.put("schema_name", "note.v1");
      }
      return call("breadcrumb-search", args.put("limit", 5));
    }
    String expression = arithmetic(lower);
    if (offered.contains("calculator") && expression != null) {
      return call("calculator", args.put("expression", expression));
    }
    return null;
  }

  /** The longest arithmetic run in the text that has a digit and an operator or function. */
  static @Nullable String arithmetic(String text) {
    String best = null;
    Matcher m = ARITHMETIC_RUN.matcher(text);
    while (m.find()) {
      String run = m.group().trim();
      boolean calculable = run.chars().anyMatch(Character::isDigit) && OPERATOR_OR_FUNCTION.matcher(run.replaceAll("\\s", "")).find();
      if (calculable && (best == null || run.length() > best.length())) {
        best = run;
      }
    }
    return best;
  }

  private ToolCall call(String tool, JsonNode args) {
    return new ToolCall("call_demo_" + calls.incrementAndGet(), tool, RcrtJson.write(args));
  }

  /** Answers from the tool messages that follow the last assistant tool-call message. */
  private static String describeResults(List<ChatMessage> messages) {
    int i = messages.size() - 1;
    while (i >= 0 && "tool".equals(messages.get(i).role())) {
      i--;
    }
    ChatMessage assistant = messages.get(i);
    List<String> parts = new ArrayList<>();
    for (ToolCall call : assistant.toolCalls()) {
      for (ChatMessage m : messages.subList(i + 1, messages.size())) {
        if (call.id().equals(m.toolCallId())) {
          parts.add(describe(call.name(), m.content() == null ? "" : m.content()));
        }
      }
    }
    return String.join("\n", parts);
  }

  private static String describe(String tool, String content) {
    if (content.startsWith("Error:")) {
      return "The " + tool + " tool reported a problem. " + content;
    }
    JsonNode out;
    try {
      out = RcrtJson.parse(content);
    } catch (ValidationException e) {
      return tool + " returned: " + content;
    }
    return switch (tool) {
      case "calculator" -> "The answer is " + out.get("result") + " (" + out.path("formatted").asText() + ").";
      case "random" -> "Your random number" + (out.path("numbers").size() == 1 ? ": " : "s: ")
          + joined(out.path("numbers")) + ".";
      case "echo" -> "Echo: " + out.path("echo").asText();
      case "timer" -> out.path("message").asText() + ".";
      case "breadcrumb-create" -> "Saved it as breadcrumb " + out.path("id").asText() + " (version "
          + out.path("version").asText() + ").";
      case "breadcrumb-search" -> searchSummary(out.path("breadcrumbs"));
      default -> tool + " returned: " + content;
    };
  }

  private static String searchSummary(JsonNode found) {
    if (found.isEmpty()) {
      return "I found no matching breadcrumbs.";
    }
    List<String> titles = new ArrayList<>();
    found.forEach(b -> titles.add(b.path("title").asText() + " (" + b.path("schema_name").asText() + ")"));
    return "I found " + found.size() + " breadcrumb" + (found.size() == 1 ? "" : "s") + ": "
        + String.join("; ", titles) + ".";
  }

  private static String joined(JsonNode array) {
    List<String> all = new ArrayList<>();
    array.forEach(n -> all.add(n.asText()));
    return String.join(", ", all);
  }

  private static List<Double> numbers(String text) {
    List<Double> out = new ArrayList<>();
    Matcher m = NUMBER.matcher(text);
    while (m.find()) {
      out.add(Double.parseDouble(m.group()));
    }
    return out;
  }

  private static String help(Set<String> offered) {
    String tools = offered.isEmpty() ? "none" : String.join(", ", new java.util.TreeSet<>(offered));
    boolean builtins = offered.stream().anyMatch(BUILTINS::contains);
    return "I am the offline demo model, so I only understand a few kinds of request"
        + (builtins ? "" : ", none of them for the tools offered here") + ". Tools offered to me: " + tools + "."
        + (builtins ? " Try \"What is 17 * 23?\", \"Give me a random number between 1 and 6\", \"echo hello\", \"remember buy milk\""
            + " or \"search my notes\"." : "")
        + " For real answers, connect a real model: an OpenAI-compatible endpoint and key (./rcrt: --base-url, OPENAI_API_KEY).";
  }

  @Override
  public java.util.Optional<String> defaultModel() {
    return java.util.Optional.of(MODEL);
  }
}
