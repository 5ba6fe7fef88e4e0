package dev.rcrt.cli;

import dev.rcrt.cli.internal.Cli;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Runs the command line in process with captured streams. */
final class CliHarness {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final Written err = new Written();
  int status;

  /** Captured output that tells whoever waits on it of each write. */
  static final class Written extends ByteArrayOutputStream {
    @Override
    public synchronized void write(int b) {
      super.write(b);
      notifyAll();
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      super.write(b, off, len);
      notifyAll();
    }

    /** The first match of {@code pattern} in what was written, waiting for each write until {@code within} of real time has passed; null then. */
    java.util.regex.Matcher await(java.util.regex.Pattern pattern, java.time.Duration within) throws InterruptedException {
      java.util.regex.Matcher[] found = new java.util.regex.Matcher[1];
      return dev.rcrt.testing.MonitorWaits.until(this, () -> (found[0] = pattern.matcher(toString(StandardCharsets.UTF_8))).find(), within)
          ? found[0] : null;
    }
  }

  static CliHarness run(Map<String, String> env, String stdin, String... args) {
    return run(env, stdin, b -> {}, args);
  }

  static CliHarness run(Map<String, String> env, String stdin, java.util.function.Consumer<dev.rcrt.tools.ToolRunner.Builder> runnerSetup, String... args) {
    CliHarness h = new CliHarness();
    Cli cli =
        new Cli(
            new PrintStream(h.out, true, StandardCharsets.UTF_8),
            new PrintStream(h.err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader(stdin)),
            hermetic(env),
            false,
            runnerSetup);
    h.status = Main.run(args, cli);
    return h;
  }

  /** Starts a command that runs until interrupted (a server) on a thread of its own; its output can be read meanwhile. */
  static CliHarness start(Map<String, String> env, String... args) {
    CliHarness h = new CliHarness();
    Cli cli =
        new Cli(
            new PrintStream(h.out, true, StandardCharsets.UTF_8),
            new PrintStream(h.err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")),
            hermetic(env),
            false,
            b -> {});
    h.thread = new Thread(() -> h.status = Main.run(args, cli), "cli-" + String.join("-", args).replaceAll("[^a-z-]", ""));
    h.thread.setDaemon(true);
    h.thread.start();
    return h;
  }

  /** Stops a command started with {@link #start} and waits for it to end. */
  void stop() throws InterruptedException {
    thread.interrupt();
    thread.join(30_000);
  }

  private Thread thread;

  /** {@code env} with the transpile cache in the build directory (unless a test names one), never the user's. */
  static Map<String, String> hermetic(Map<String, String> env) {
    if (env.containsKey("RCRT_CACHE_DIR")) {
      return env;
    }
    Map<String, String> copy = new java.util.HashMap<>(env);
    copy.put("RCRT_CACHE_DIR", java.nio.file.Path.of("target", "test-transpile-cache").toAbsolutePath().toString());
    return copy;
  }

  static CliHarness run(String... args) {
    return run(Map.of(), "", args);
  }

  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }
}
