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
 * Node 22 and the official JavaScript peers the tests talk to, installed once from the npm registry:
 * into {@code target/mcp-node} the MCP conformance suite and reference server (npm packages {@code
 * node@22}, {@code @modelcontextprotocol/conformance@0.1.16}, {@code
 * @modelcontextprotocol/server-everything}), into {@code target/a2a-node} the A2A JavaScript SDK of
 * protocol 0.3.0 ({@code @a2a-js/sdk@0.3.14}, with {@code express}, its server's peer), into {@code
 * target/agui-node} the official AG-UI client ({@code @ag-ui/client@1.0.0}). Where npm or
 * the registry is missing the tests that need them are skipped with the reason, except under {@code
 * CI=true}, where they fail (as the container tests do): {@code .ci/run} installs npm.
 */
final class NodeTools {
  static final Path DIR = Path.of("target/mcp-node").toAbsolutePath();
  static final String CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
  static final String EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31";

  private NodeTools() {}

  /** The A2A JavaScript SDK's directory: {@code node_modules} with {@code @a2a-js/sdk} and {@code express}. */
  static final Path A2A_DIR = Path.of("target/a2a-node").toAbsolutePath();
  static final String A2A_SDK = "@a2a-js/sdk@0.3.14";

  /** The Node 22 binary beside the MCP packages, installing them first if needed; skips (or fails under CI) when impossible. */
  static synchronized Path node() {
    Path node = DIR.resolve("node_modules/.bin/node");
    if (!Files.isExecutable(DIR.resolve("node_modules/.bin/conformance")) || !Files.isExecutable(node)
        || !Files.isDirectory(DIR.resolve("node_modules/@modelcontextprotocol/server-everything"))) {
      install(DIR, "the MCP conformance tests", "node@22", CONFORMANCE, EVERYTHING);
    }
    return node;
  }

  /** The Node 22 binary beside the A2A JavaScript SDK, installing them first if needed; skips (or fails under CI) when impossible. */
  static synchronized Path a2aNode() {
    Path node = A2A_DIR.resolve("node_modules/.bin/node");
    if (!Files.isExecutable(node) || !Files.isDirectory(A2A_DIR.resolve("node_modules/@a2a-js/sdk"))
        || !Files.isDirectory(A2A_DIR.resolve("node_modules/express"))) {
      install(A2A_DIR, "the A2A interoperability tests", "node@22", A2A_SDK, "express@4.21.2");
    }
    return node;
  }

  /** The AG-UI client's directory: Node 22 and {@code @ag-ui/client} 1.0.0. */
  static final Path AGUI_DIR = Path.of("target/agui-node").toAbsolutePath();

  /** The Node 22 binary beside the official AG-UI client, installing them first if needed; skips (or fails under CI) when impossible. */
  static synchronized Path aguiNode() {
    Path node = AGUI_DIR.resolve("node_modules/.bin/node");
    if (!Files.isExecutable(node) || !Files.isDirectory(AGUI_DIR.resolve("node_modules/@ag-ui/client"))) {
      install(AGUI_DIR, "the AG-UI interoperability tests", "node@22", "@ag-ui/client@1.0.0");
    }
    return node;
  }

  /** {@code node_modules/.bin/NAME}. */
  static Path bin(String name) {
    return DIR.resolve("node_modules/.bin/" + name);
  }

  private static void install(Path dir, String what, String... packages) {
    String problem;
    try {
      Files.createDirectories(dir);
      List<String> command = new ArrayList<>(List.of("npm", "install", "--prefix", dir.toString(), "--no-audit", "--no-fund", "--loglevel=error"));
      command.addAll(List.of(packages));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
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
      problem = "interrupted while npm installed " + String.join(" ", packages);
    }
    if ("true".equals(System.getenv("CI"))) {
      fail(what + " cannot run under CI: " + problem);
    }
    Assumptions.abort(what + " skipped: " + problem);
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
