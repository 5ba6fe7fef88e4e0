package dev.rcrt.cli.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.mcp.McpClientSession;
import dev.rcrt.mcp.McpServerAddress;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "call",
    description = {
      "Call one tool of an MCP server and print its result: the structuredContent as JSON when the",
      "tool gives one, else its text. SERVER is an http(s):// URL (streamable HTTP) or a command to start",
      "over stdio, such as \"npx -y @modelcontextprotocol/server-everything\". Exits 1 when the tool",
      "reports an error (isError) or the server fails, with the reason on stderr.",
      "Forms: mcp call SERVER TOOL [JSON], or mcp call --tool TOOL [--input JSON] SERVER (the server",
      "last, as the MCP conformance suite appends it)."
    })
public final class McpCallCommand implements Callable<Integer> {
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private final Cli cli;

  @Spec CommandSpec spec;

  @Option(names = "--tool", paramLabel = "TOOL", description = "The tool to call (instead of the second argument).")
  @Nullable String tool;

  @Option(names = "--input", paramLabel = "JSON", converter = Converters.Json.class, description = "The arguments object (default: {}).")
  @Nullable JsonNode input;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "Limit of each request (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds = 60;

  /** How this command answers a server that asks its user during the call ({@code elicitation/create}). */
  enum Elicitation { NONE, ASK, DECLINE, CANCEL, DEFAULTS }

  @Option(names = "--elicitation", paramLabel = "ANSWER", defaultValue = "none", converter = ElicitationConverter.class,
      description = {"How to answer a server that asks the user during the call (MCP elicitation): none (the default:",
          "the capability is not declared, so the server cannot ask), ask (the questions on stderr, the answers",
          "read from stdin, one line each), decline, cancel, or defaults (accept with the requested schema's",
          "default values; each request is noted on stderr)."})
  Elicitation elicitation = Elicitation.NONE;

  @Mixin OAuthOptions oauth = new OAuthOptions();

  @Parameters(arity = "1..3", paramLabel = "ARG", description = "SERVER [TOOL [JSON]], or SERVER alone with --tool.")
  List<String> args = new ArrayList<>();

  public McpCallCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    String server;
    String name;
    JsonNode arguments;
    if (tool != null) {
      if (args.size() != 1) {
        throw new ParameterException(spec.commandLine(), "with --tool, give only the server");
      }
      server = args.get(0);
      name = tool;
      arguments = input == null ? RcrtJson.object() : input;
    } else {
      if (args.size() < 2) {
        throw new ParameterException(spec.commandLine(), "give the server and the tool: mcp call SERVER TOOL [JSON]");
      }
      server = args.get(0);
      name = args.get(1);
      arguments = args.size() == 3 ? new Converters.Json().convert(args.get(2)) : RcrtJson.object();
    }
    if (!arguments.isObject()) {
      throw new ParameterException(spec.commandLine(), "the tool's arguments must be a JSON object, found " + arguments.getNodeType());
    }
    try (McpClientSession session = McpClientSession.connect(
        McpServerAddress.parse(server), Duration.ofSeconds(timeoutSeconds), java.util.Set.of(), tools -> {}, answer(elicitation), oauth.oauth(cli))) {
      McpSchema.CallToolResult result = session.call(name, RcrtJson.convert(arguments, MAP));
      String text = McpResults.text(result);
      if (Boolean.TRUE.equals(result.isError())) {
        cli.note("tool '" + name + "' reported an error: " + text);
        return 1;
      }
      cli.out().println(result.structuredContent() != null
          ? RcrtJson.toTree(result.structuredContent()).toPrettyString()
          : text);
      return 0;
    }
  }

  /** The answer {@code how} gives every elicitation, noted on stderr; null for {@link Elicitation#NONE}. */
  private @Nullable Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> answer(Elicitation how) {
    if (how == Elicitation.NONE) {
      return null;
    }
    if (how == Elicitation.ASK) {
      return new TerminalElicitation(cli.in(), cli.err(), "The server")::ask;
    }
    return request -> {
      cli.note("the server asks: " + request.message() + " (answered: " + how.name().toLowerCase(java.util.Locale.ROOT) + ")");
      return switch (how) {
        case DEFAULTS -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of()); // the client fills the schema's defaults
        case CANCEL -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null);
        default -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
      };
    };
  }

  /** Reads {@code none}, {@code ask}, {@code decline}, {@code cancel} or {@code defaults}, naming the choices otherwise. */
  static final class ElicitationConverter implements picocli.CommandLine.ITypeConverter<Elicitation> {
    @Override
    public Elicitation convert(String value) {
      try {
        return Elicitation.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not an answer; use none, ask, decline, cancel or defaults");
      }
    }
  }
}
