package dev.rcrt.cli.internal;

import dev.rcrt.core.spi.PrivateDirectory;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * For the in-memory store, which every command opens afresh: the {@code tool.transpiled.v1} records
 * the JavaScript runtime keeps (a TypeScript tool's JavaScript) are saved in the user's cache
 * directory when the command ends and loaded as the host's at the next start, so the TypeScript
 * compiler loads once per source, not once per command. A shared store (PostgreSQL, an RCRT
 * server) keeps them itself.
 *
 * <p>The directory is {@code $RCRT_CACHE_DIR}, else {@code $XDG_CACHE_HOME/rcrt/transpiled}, else
 * {@code ~/.cache/rcrt/transpiled}, created readable by its owner only: whoever can write there can
 * run code as the user, as whoever can write a {@code --breadcrumbs} file can. So a directory (or
 * what a symbolic link there points at) that another user owns, or that its group or others may
 * write, is not used at all, and one line says why. The runtime still checks each record against
 * the source it was made from; a record it replaced (a stale transpile) is written back, so the
 * next command does not transpile again. Failures to read or write the cache are reported once
 * and change nothing else.
 */
final class TranspileCache {
  private static final String SCHEMA = "tool.transpiled.v1";

  private final Path dir;
  private final Cli cli;
  /** The records loaded, by id, with the version each had once loaded: one changed since is saved again. */
  private final Map<String, Long> loaded = new java.util.HashMap<>();
  private boolean refused;

  private TranspileCache(Path dir, Cli cli) {
    this.dir = dir;
    this.cli = cli;
  }

  static TranspileCache of(Cli cli) {
    return new TranspileCache(PrivateDirectory.of(cli.env(), "RCRT_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "transpiled"), cli);
  }

  /** Loads the cached records into {@code store} as the host's. */
  void loadInto(BreadcrumbStore store) {
    if (!Files.isDirectory(dir) || !trusted()) {
      return;
    }
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      cli.note("transpile cache " + dir + " not read: " + e.getMessage());
      return;
    }
    for (var create : BreadcrumbFiles.read(files).items()) {
      if (SCHEMA.equals(create.schemaName()) && create.id() != null) {
        loaded.put(create.id(), BreadcrumbFiles.upsert(store, create).version());
      }
    }
  }

  /** Saves the records {@code store} gained during the command. */
  void save(BreadcrumbStore store) {
    List<Breadcrumb> kept = store.search(Selector.schema(SCHEMA), 1000, 0).stream()
        .filter(b -> !Long.valueOf(b.version()).equals(loaded.get(b.id()))).toList();
    if (kept.isEmpty() || refused || Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !trusted()) {
      return;
    }
    try {
      PrivateDirectory.create(dir);
      for (Breadcrumb b : kept) {
        Path file = dir.resolve(b.id() + ".json");
        Files.writeString(file, RcrtJson.write(b), StandardCharsets.UTF_8); // RCRT's wire form, which BreadcrumbFiles reads back
      }
    } catch (IOException | UnsupportedOperationException e) {
      cli.note("transpile cache " + dir + " not written: " + e.getMessage());
    }
  }

  /**
   * Whether the directory may be used: owned by this user (the link itself too, when it is one)
   * and writable by nobody else. Says why once when not. Non-POSIX file systems are trusted.
   */
  private boolean trusted() {
    String why = PrivateDirectory.refusal(dir, false);
    if (why != null && !refused) {
      refused = true;
      cli.note("transpile cache " + dir + " not used: " + why + "; whoever can write there could run code as you");
    }
    return why == null;
  }
}
