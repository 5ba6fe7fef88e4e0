package dev.rcrt.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Node 22, the official MCP conformance suite and the reference server, installed once from the npm
 * registry into {@code target/mcp-node} (npm packages {@code node@22}, {@code
 * @modelcontextprotocol/conformance@0.1.16}, {@code @modelcontextprotocol/server-everything}). Where
 * npm or the registry is missing the tests that need them are skipped with the reason, except
 * under {@code CI=true}, where they fail (as the container tests do): {@code .ci/run} installs npm.
 */
final class NodeTools {
  static final Path DIR = Path.of("target/mcp-node").toAbsolutePath();
  static final String CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
  static final String EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31";

  private NodeTools() {}

  /** The Node 22 binary, installing everything first if needed; skips (or fails under CI) when impossible. */
  static synchronized Path node() {
    Path node = DIR.resolve("node_modules/.bin/node");
    if (!Files.isExecutable(DIR.resolve("node_modules/.bin/conformance")) || !Files.isExecutable(node)
        || !Files.isDirectory(DIR.resolve("node_modules/@modelcontextprotocol/server-everything"))) {
      install();
    }
    return node;
  }

  /** {@code node_modules/.bin/NAME}. */
  static Path bin(String name) {
    return DIR.resolve("node_modules/.bin/" + name);
  }

  private static void install() {
    String problem;
    try {
      Files.createDirectories(DIR);
      Process p = new ProcessBuilder("npm", "install", "--prefix", DIR.toString(), "--no-audit", "--no-fund", "--loglevel=error",
          "node@22", CONFORMANCE, EVERYTHING).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(600, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        problem = "npm install did not finish within 10 minutes";
      } else if (p.exitValue() != 0) {
        problem = "npm install failed (exit " + p.exitValue() + "): " + out.strip();
      } else {
        return;
      }
    } catch (IOException e) {
      problem = "npm is not installed (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted while npm installed the MCP conformance suite";
    }
    if ("true".equals(System.getenv("CI"))) {
      fail("the MCP conformance tests cannot run under CI: " + problem);
    }
    Assumptions.abort("MCP conformance tests skipped: " + problem);
  }

  /** Runs a command to its end, at most {@code seconds}, and returns its exit code and output. */
  static Result run(List<String> command, java.util.Map<String, String> env, int seconds) throws IOException, InterruptedException {
    ProcessBuilder b = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
    b.environment().putAll(env);
    Process p = b.start();
    byte[][] out = new byte[1][];
    Thread reader = new Thread(() -> {
      try {
        out[0] = p.getInputStream().readAllBytes();
      } catch (IOException e) {
        out[0] = new byte[0];
      }
    });
    reader.start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    reader.join(5000);
    String text = out[0] == null ? "" : new String(out[0], StandardCharsets.UTF_8).replaceAll("\u001b\\[[0-9;]*m", "");
    return new Result(p.isAlive() ? -1 : p.exitValue(), text);
  }

  record Result(int exit, String output) {}
}
