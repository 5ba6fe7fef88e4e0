package dev.rcrt.core.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A directory of the user's that only the user may change (and, for secrets, read): the checks a
 * cache of code (the command line's transpiled TypeScript, ONNX Runtime's native libraries for
 * MiniLM) and a store of tokens (the command line's OAuth tokens) make before they trust what is
 * there, since whoever can write such a directory can run code as the user. Non-POSIX file systems
 * (Windows) are trusted: the user's profile directory is private already. Stateless; thread-safe.
 */
public final class PrivateDirectory {
  private PrivateDirectory() {}

  /**
   * The directory {@code $override} names, else {@code $xdgVariable/rcrt/name}, else {@code
   * ~/xdgDefault/rcrt/name}: where the user's files of one kind are kept. Creates nothing.
   *
   * @param env the environment to read, such as {@code System.getenv()}
   * @param override a variable that names the directory itself, such as {@code RCRT_CACHE_DIR}
   * @param xdgVariable the XDG base directory variable, such as {@code XDG_CACHE_HOME}
   * @param xdgDefault that variable's default under the home directory, such as {@code .cache}
   * @param name the kind of files, the directory's last segment, such as {@code transpiled}
   */
  public static Path of(java.util.Map<String, String> env, String override, String xdgVariable, String xdgDefault, String name) {
    return env.get(override) != null ? Path.of(env.get(override))
        : env.get(xdgVariable) != null ? Path.of(env.get(xdgVariable), "rcrt", name)
        : Path.of(System.getProperty("user.home"), xdgDefault, "rcrt", name);
  }

  /**
   * Why {@code dir} may not be used, or null when it may: it (and the link itself, when it is one)
   * must be owned by this user and writable by nobody else; with {@code secret}, readable by nobody
   * else either.
   */
  public static @Nullable String refusal(Path dir, boolean secret) {
    try {
      String me = System.getProperty("user.name");
      Path real = dir.toRealPath();
      String it = real.equals(dir.toAbsolutePath()) ? "it" : "its target " + real;
      if (Files.isSymbolicLink(dir) && !me.equals(Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName())) {
        return "it is a symbolic link owned by " + Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
      }
      if (!me.equals(Files.getOwner(real).getName())) {
        return it + " is owned by " + Files.getOwner(real).getName() + ", not " + me;
      }
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(real);
      if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
        return it + " may be written by others (" + PosixFilePermissions.toString(perms) + "); chmod go-w it";
      }
      if (secret && (perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.OTHERS_READ))) {
        return it + " may be read by others (" + PosixFilePermissions.toString(perms) + "); chmod go-rwx it";
      }
      return null;
    } catch (UnsupportedOperationException e) {
      return null;
    } catch (IOException e) {
      return "it cannot be inspected: " + e.getMessage();
    }
  }

  /**
   * Creates {@code dir} (and its parents, with the default permissions) readable, writable and
   * searchable by its owner only, unless it exists; says nothing of one that exists ({@link #refusal} does).
   *
   * @throws IOException when it cannot be created
   */
  public static void create(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    @Nullable Path parent = dir.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException e) {
      Files.createDirectory(dir);
    }
  }
}
