package dev.rcrt.cli.internal;

import dev.rcrt.tools.ToolRunner;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a command talks to: its streams and environment, passed in so tests can run commands in
 * process with their own.
 *
 * @param out answers and requested output
 * @param err diagnostics
 * @param in messages for the chat REPL
 * @param env environment variables (API keys are read from here)
 * @param interactive whether a person is typing at a terminal (prompts are shown)
 * @param runnerSetup applied to every tool runner a command builds, after the command's own
 *     settings: how a program embedding the CLI adds interceptors and event listeners
 */
public record Cli(
    PrintStream out, PrintStream err, BufferedReader in, Map<String, String> env, boolean interactive,
    Consumer<ToolRunner.Builder> runnerSetup) {

  /** A CLI whose runners are used as the commands build them. */
  public Cli(PrintStream out, PrintStream err, BufferedReader in, Map<String, String> env, boolean interactive) {
    this(out, err, in, env, interactive, b -> {});
  }

  /** A diagnostic line on stderr, prefixed {@code rcrt: }. */
  public void note(String message) {
    err.println("rcrt: " + message);
  }
}
