package dev.rcrt.cli.internal;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.util.Map;

/**
 * What a command talks to: its streams and environment, passed in so tests can run commands in
 * process with their own.
 *
 * @param out answers and requested output
 * @param err diagnostics
 * @param in messages for the chat REPL
 * @param env environment variables (API keys are read from here)
 * @param interactive whether a person is typing at a terminal (prompts are shown)
 */
public record Cli(PrintStream out, PrintStream err, BufferedReader in, Map<String, String> env, boolean interactive) {
  /** A diagnostic line on stderr, prefixed {@code rcrt: }. */
  public void note(String message) {
    err.println("rcrt: " + message);
  }
}
