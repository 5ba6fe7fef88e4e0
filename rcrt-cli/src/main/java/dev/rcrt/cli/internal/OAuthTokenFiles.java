package dev.rcrt.cli.internal;

import dev.rcrt.core.spi.PrivateDirectory;
import dev.rcrt.mcp.McpOAuth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CLI's {@link McpOAuth.TokenStore}: each MCP server's tokens and client registration in a file
 * of their own ({@code SHA-256 of the server URL}.json, mode 0600), so that a later command (a
 * chat, a runner) uses what {@code mcp tools}, {@code mcp call} or {@code mcp import} authorized.
 * The directory is {@code $RCRT_OAUTH_DIR}, else {@code $XDG_CONFIG_HOME/rcrt/oauth}, else {@code
 * ~/.config/rcrt/oauth}, created for its owner only. One that another user owns, or that others
 * may read or write, is not used (tokens are kept in memory for the command, and one line says
 * why). Files hold secrets: they appear in no record and no log. Thread-safe.
 */
final class OAuthTokenFiles implements McpOAuth.TokenStore {
  private final Path dir;
  private final Cli cli;
  private final Map<String, String> memory = new ConcurrentHashMap<>();
  private volatile boolean refused;

  private OAuthTokenFiles(Path dir, Cli cli) {
    this.dir = dir;
    this.cli = cli;
  }

  static OAuthTokenFiles of(Cli cli) {
    return new OAuthTokenFiles(PrivateDirectory.of(cli.env(), "RCRT_OAUTH_DIR", "XDG_CONFIG_HOME", ".config", "oauth"), cli);
  }

  @Override
  public Optional<String> load(String resource) {
    String kept = memory.get(resource);
    if (kept != null || !Files.isDirectory(dir) || !usable()) {
      return Optional.ofNullable(kept);
    }
    Path file = file(resource);
    try {
      return Files.isRegularFile(file) ? Optional.of(Files.readString(file, StandardCharsets.UTF_8)) : Optional.empty();
    } catch (IOException e) {
      cli.note("saved authorization " + file + " not read: " + e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public synchronized void save(String resource, String value) {
    memory.put(resource, value);
    try {
      if (Files.exists(dir) && !usable()) {
        return;
      }
      PrivateDirectory.create(dir);
      Path file = file(resource);
      Path temp = Files.createTempFile(dir, ".token", ".tmp");
      try {
        try {
          Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
          // not POSIX: the user's profile directory is private already
        }
        Files.writeString(temp, value, StandardCharsets.UTF_8);
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      cli.note("authorization for " + resource + " not saved in " + dir + ": " + e.getMessage() + "; it lasts for this command only");
    }
  }

  private boolean usable() {
    String why = PrivateDirectory.refusal(dir, true);
    if (why != null && !refused) {
      refused = true;
      cli.note("token directory " + dir + " not used: " + why + "; authorizations last for this command only");
    }
    return why == null;
  }

  private Path file(String resource) {
    return dir.resolve(dev.rcrt.core.spi.ContentDigest.sha256Hex(resource) + ".json");
  }
}
