package dev.rcrt.cli;

import dev.rcrt.cli.internal.ChatCommand;
import dev.rcrt.cli.internal.Cli;
import dev.rcrt.cli.internal.A2aCardCommand;
import dev.rcrt.cli.internal.A2aCommand;
import dev.rcrt.cli.internal.A2aImportCommand;
import dev.rcrt.cli.internal.A2aSendCommand;
import dev.rcrt.cli.internal.A2aServeCommand;
import dev.rcrt.cli.internal.ConsoleCommand;
import dev.rcrt.cli.internal.McpCallCommand;
import dev.rcrt.cli.internal.McpCommand;
import dev.rcrt.cli.internal.McpImportCommand;
import dev.rcrt.cli.internal.McpServeCommand;
import dev.rcrt.cli.internal.McpToolsCommand;
import dev.rcrt.cli.internal.RunnerCommand;
import dev.rcrt.cli.internal.RunsCommand;
import dev.rcrt.cli.internal.SearchCommand;
import dev.rcrt.cli.internal.SignCommand;
import dev.rcrt.cli.internal.ToolCallCommand;
import dev.rcrt.cli.internal.ToolCommand;
import dev.rcrt.cli.internal.ToolsCommand;
import dev.rcrt.cli.internal.ValidateCommand;
import dev.rcrt.cli.internal.ViewCommand;
import dev.rcrt.core.RcrtException;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code ./rcrt} command line. Answers go to stdout, diagnostics to stderr. Exit status: 0 ok,
 * 1 failure (a one-line reason; {@code -v} adds the stack trace), 2 usage error (what is wrong and
 * which {@code --help} to read).
 */
@Command(
    name = "rcrt",
    mixinStandardHelpOptions = true,
    version = "rcrt 0.1.0",
    description = "RCRT, Right Context, Right Time: agents that discover their tools from breadcrumbs.")
public final class Main implements Callable<Integer> {
  @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT, description = "Log debug detail and print stack traces on failure.")
  boolean verbose;

  private final Cli cli;

  private Main(Cli cli) {
    this.cli = cli;
  }

  @Spec CommandSpec spec;

  /** Run with no command: the list of commands on stderr, exit 2. */
  @Override
  public Integer call() {
    spec.commandLine().usage(cli.err());
    return 2;
  }

  /** Entry point of the launcher. */
  public static void main(String[] args) {
    List<String> all = Arrays.asList(args);
    boolean verbose = all.contains("-v") || all.contains("--verbose");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "debug" : "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    // DJL (MiniLM's tokenizer) probes for CUDA on first use and warns when a machine has none
    System.setProperty("org.slf4j.simpleLogger.log.ai.djl", verbose ? "debug" : "error");
    // the MCP SDK's client session logs ERROR and WARN lines when a server's notifications or late
    // responses arrive while a finished call closes the session; the commands report real failures themselves
    System.setProperty("org.slf4j.simpleLogger.log.io.modelcontextprotocol.spec.McpClientSession", verbose ? "debug" : "off");
    // libraries that log through java.util.logging (Tomcat under mcp serve --http) go through SLF4J too,
    // at the same level, instead of printing INFO lines in JUL's own format
    org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
    org.slf4j.bridge.SLF4JBridgeHandler.install();
    // (INFO with -v: the JDK logs its own internals at FINE, certificates and all)
    java.util.logging.Logger.getLogger("").setLevel(verbose ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING);
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int status = 1;
    // SIGTERM or Ctrl-C interrupts the command, which closes what it opened (the store, and with it the embedding model) before
    // the JVM's shutdown hooks run: ONNX Runtime's own hook crashed processes whose model was still in native code
    try (dev.rcrt.cli.internal.StopSignal signal = new dev.rcrt.cli.internal.StopSignal()) {
      Thread command = Thread.currentThread();
      signal.onStop(command::interrupt);
      status = run(args, new Cli(out, err, in, System.getenv(), System.console() != null));
      if (signal.received() != 0) {
        status = 128 + signal.received();
      }
    } catch (Throwable fatal) {
      // an Error a command did not handle (a tool's OutOfMemoryError, rethrown once its response is recorded; a class
      // missing from a broken install): one line, status 1, and the process ends even if a library's threads still run
      err.println("rcrt: stopped by " + dev.rcrt.core.spi.Throwables.describe(fatal)
          + (verbose ? "" : "; run again with -v for its stack trace"));
      if (verbose) {
        fatal.printStackTrace(err);
      }
      err.flush();
    } finally {
      System.exit(status);
    }
  }

  /**
   * Runs one command line against the given streams and environment.
   *
   * @return the exit status: 0 ok, 1 failure, 2 usage error
   */
  public static int run(String[] args, Cli cli) {
    Main main = new Main(cli);
    CommandLine cmd = new CommandLine(main);
    cmd.addSubcommand("chat", new ChatCommand(cli));
    CommandLine tools = new CommandLine(new ToolsCommand());
    tools.addSubcommand("list", new ToolsCommand.ListTools(cli));
    tools.addSubcommand("prompt", new ToolsCommand.PromptTools(cli));
    cmd.addSubcommand("tools", tools);
    CommandLine tool = new CommandLine(new ToolCommand());
    tool.addSubcommand("call", new ToolCallCommand(cli));
    cmd.addSubcommand("tool", tool);
    cmd.addSubcommand("view", new ViewCommand(cli));
    cmd.addSubcommand("search", new SearchCommand(cli));
    cmd.addSubcommand("validate", new ValidateCommand(cli));
    cmd.addSubcommand("runner", new RunnerCommand(cli));
    CommandLine runs = new CommandLine(new RunsCommand());
    runs.addSubcommand("list", new RunsCommand.ListRuns(cli));
    runs.addSubcommand("show", new RunsCommand.ShowRun(cli));
    runs.addSubcommand("approve", new RunsCommand.Approve(cli));
    runs.addSubcommand("deny", new RunsCommand.Deny(cli));
    runs.addSubcommand("answer", new RunsCommand.Answer(cli));
    runs.addSubcommand("resume", new RunsCommand.Resume(cli));
    runs.addSubcommand("cancel", new RunsCommand.Cancel(cli));
    cmd.addSubcommand("runs", runs);
    cmd.addSubcommand("sign", new SignCommand(cli));
    CommandLine mcp = new CommandLine(new McpCommand());
    mcp.addSubcommand("serve", new McpServeCommand(cli));
    mcp.addSubcommand("tools", new McpToolsCommand(cli));
    mcp.addSubcommand("call", new McpCallCommand(cli));
    mcp.addSubcommand("import", new McpImportCommand(cli));
    cmd.addSubcommand("mcp", mcp);
    CommandLine a2a = new CommandLine(new A2aCommand());
    a2a.addSubcommand("serve", new A2aServeCommand(cli));
    a2a.addSubcommand("card", new A2aCardCommand(cli));
    a2a.addSubcommand("send", new A2aSendCommand(cli));
    a2a.addSubcommand("import", new A2aImportCommand(cli));
    cmd.addSubcommand("a2a", a2a);
    cmd.addSubcommand("console", new ConsoleCommand(cli));
    withHelp(cmd);
    cmd.setOut(new java.io.PrintWriter(cli.out(), true));
    cmd.setErr(new java.io.PrintWriter(cli.err(), true));
    cmd.setParameterExceptionHandler(
        (e, given) -> {
          // the error, a suggestion where picocli has one, and where the usage is: not the whole usage
          cli.note(java.util.Objects.requireNonNullElse(e.getMessage(), e.toString()));
          CommandLine.UnmatchedArgumentException.printSuggestions(e, cli.err());
          cli.err().println("Run './" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for its usage.");
          return 2;
        });
    cmd.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          String reason =
              e instanceof RcrtException || e instanceof java.io.IOException || e instanceof IllegalArgumentException
                  ? java.util.Objects.requireNonNullElse(e.getMessage(), e.toString())
                  : e.toString();
          cli.note(reason);
          if (verbose(parsed)) {
            e.printStackTrace(cli.err());
          }
          return 1;
        });
    return cmd.execute(args);
  }

  /** Whether {@code -v}/{@code --verbose} was given at any level of the command line (it is inherited by every command). */
  private static boolean verbose(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult level = parsed; level != null; level = level.subcommand()) {
      if (level.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code -h}/{@code --help} on every command and a {@code help [COMMAND]} subcommand on every
   * command that has subcommands, so that help works at every level.
   */
  private static void withHelp(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    String[] header = spec.usageMessage().header();
    String[] description = paragraphs(spec.usageMessage().description());
    spec.usageMessage().description(description);
    if (header.length == 0 && description.length > 0) {
      // a parent's list of commands shows a header, else the description's first line, which breaks mid-sentence
      spec.usageMessage().header(firstSentence(String.join(" ", description)));
      // the header is for the parent's list; the command's own help starts with its usage, as before
      List<String> sections = new java.util.ArrayList<>(spec.usageMessage().sectionKeys());
      sections.remove(CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER_HEADING);
      sections.remove(CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER);
      spec.usageMessage().sectionKeys(sections);
    }
    if (spec.findOption("--help") == null) {
      spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help message and exit.").build());
    }
    if (!command.getSubcommands().isEmpty() && !command.getSubcommands().containsKey("help")) {
      List<CommandLine> subcommands = List.copyOf(command.getSubcommands().values());
      command.addSubcommand("help", new CommandLine.HelpCommand());
      subcommands.forEach(Main::withHelp);
    }
  }

  /**
   * A description written as source lines, as paragraphs: lines join with a space, and a line that
   * ends a sentence before one that starts with a capital letter ends its paragraph. Picocli wraps
   * each element at the usage width, so source lines kept as elements broke the text twice.
   */
  static String[] paragraphs(String[] lines) {
    List<String> out = new java.util.ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : lines) {
      String l = line.strip();
      if (current.length() > 0) {
        char last = current.charAt(current.length() - 1);
        boolean ends = last == '.' || last == ':' || last == ')';
        if (l.isEmpty() || ends && !l.isEmpty() && Character.isUpperCase(l.charAt(0))) {
          out.add(current.toString());
          current.setLength(0);
        } else {
          current.append(' ');
        }
      }
      current.append(l);
    }
    if (current.length() > 0) {
      out.add(current.toString());
    }
    return out.toArray(String[]::new);
  }

  /** The text up to its first full stop or colon that ends a sentence (outside brackets, then a space or the end), as a sentence. */
  static String firstSentence(String text) {
    String t = text.strip().replaceAll("\\s+", " ");
    int depth = 0; // a stop inside parentheses or braces does not end the sentence
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      depth += c == '(' || c == '{' || c == '[' ? 1 : c == ')' || c == '}' || c == ']' ? -1 : 0;
      if (depth <= 0 && (c == '.' || c == ':') && (i + 1 == t.length() || t.charAt(i + 1) == ' ') && !t.startsWith("e.g", Math.max(0, i - 3))) {
        return t.substring(0, i) + ".";
      }
    }
    return t.endsWith(".") ? t : t + ".";
  }
}
