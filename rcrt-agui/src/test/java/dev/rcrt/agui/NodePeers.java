package dev.rcrt.agui;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * What the AG-UI tests run beside the server, installed once from the npm registry into {@code
 * target/agui-node}: Node 22, the official AG-UI client ({@code @ag-ui/client} 1.0.0) and {@code
 * playwright-core} (which drives the machine's Chromium; it downloads no browser). Without npm, or
 * without Chromium for the browser tests, a test is skipped with the reason, except under {@code
 * CI=true}, where it fails ({@code .ci/run} installs both).
 */
final class NodePeers {
  static final Path DIR = Path.of("target/agui-node").toAbsolutePath();
  private static final List<String> PACKAGES = List.of("node@22", "@ag-ui/client@1.0.0", "playwright-core@1.65.1");

  private NodePeers() {}

  /** The Node 22 binary, the packages installed beside it. */
  static synchronized Path node() throws IOException, InterruptedException {
    Path node = DIR.resolve("node_modules/.bin/node");
    if (Files.isExecutable(node) && Files.isDirectory(DIR.resolve("node_modules/@ag-ui/client"))
        && Files.isDirectory(DIR.resolve("node_modules/playwright-core"))) {
      return node;
    }
    Files.createDirectories(DIR);
    String problem;
    try {
      List<String> command = new java.util.ArrayList<>(List.of("npm", "install", "--prefix", DIR.toString(), "--no-audit", "--no-fund",
          "--loglevel=error"));
      command.addAll(PACKAGES);
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(600, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        problem = "npm install did not finish within 10 minutes";
      } else if (p.exitValue() != 0) {
        problem = "npm install failed (exit " + p.exitValue() + "): " + out.strip();
      } else {
        return node;
      }
    } catch (IOException e) {
      problem = "npm is not installed (" + e.getMessage() + ")";
    }
    unavailable("npm packages", problem);
    return node;
  }

  /** A script of the test resources {@code agui/NAME}, copied beside the packages so that it finds them. */
  static Path script(String name) throws IOException {
    Path script = DIR.resolve(name);
    try (var in = NodePeers.class.getResourceAsStream("/agui/" + name)) {
      Files.copy(java.util.Objects.requireNonNull(in, name), script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    return script;
  }

  /** The machine's Chromium. */
  static String chromium() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    unavailable("Chromium", "no chromium on the PATH (apt-get install chromium)");
    return "";
  }

  private static void unavailable(String what, String problem) {
    if ("true".equals(System.getenv("CI"))) {
      fail("the AG-UI tests cannot run under CI without " + what + ": " + problem);
    }
    Assumptions.abort("skipped without " + what + ": " + problem);
  }
}
