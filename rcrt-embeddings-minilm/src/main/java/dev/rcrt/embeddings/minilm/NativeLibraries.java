package dev.rcrt.embeddings.minilm;

import dev.rcrt.core.spi.PrivateDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lasting copy of ONNX Runtime's native libraries per user and per build of them, instead of a
 * fresh copy in every process.
 *
 * <p>The binding copies {@code libonnxruntime} and its JNI library (16.6 MB on linux-x64) out of its
 * jar into a new {@code onnxruntime-java*} directory under {@code java.io.tmpdir} each time a
 * process loads it, and deletes them only as the JVM exits normally: a process killed while it
 * loaded the model (4 of the 16 runners {@code DurableRunChaosTest} kills, restarted and killed
 * again as they took up work) left a whole or partial copy there for good. When the host has not
 * chosen a directory itself ({@code onnxruntime.native.path}), {@link #place} copies the libraries
 * once into {@code $RCRT_ONNXRUNTIME_DIR}, else {@code $XDG_CACHE_HOME/rcrt/onnxruntime}, else
 * {@code ~/.cache/rcrt/onnxruntime}, in a folder named by the platform and the libraries' CRC-32s
 * (as their jar records them, so a new build gets a folder of its own), each written beside its
 * final name and renamed into place once whole, so a process killed while copying leaves at most a
 * {@code .part} file, which a later copy removes once it is an hour old. Whoever can write that
 * directory can run code in every process that loads the model, so one that another user owns or
 * that its group or others may write is not used: a warning says why and the binding copies as
 * before. So does any failure here (a read-only home, a full disk).
 */
final class NativeLibraries {
  private static final Logger LOG = LoggerFactory.getLogger(NativeLibraries.class);
  /** The binding's property: the directory it loads its libraries from instead of copying them. */
  static final String PATH_PROPERTY = "onnxruntime.native.path";
  /** The libraries the binding loads, by the names {@link System#mapLibraryName} maps to files. */
  static final List<String> LIBRARIES = List.of("onnxruntime", "onnxruntime4j_jni");
  private static final Duration STALE_PART = Duration.ofHours(1);

  private NativeLibraries() {}

  /**
   * The directory holding whole copies of the binding's libraries, made now if they were not there
   * yet, or null when the binding should copy them itself (the host chose a directory, or this one
   * cannot be trusted or written: logged).
   *
   * @param env the environment ({@code System.getenv()})
   */
  static @Nullable Path place(Map<String, String> env) {
    if (System.getProperty(PATH_PROPERTY) != null) {
      return null;
    }
    Path root = PrivateDirectory.of(env, "RCRT_ONNXRUNTIME_DIR", "XDG_CACHE_HOME", ".cache", "onnxruntime");
    if (!root.isAbsolute()) { // no home directory (user.home is "?" for a user the system does not list): nowhere lasting to keep them
      LOG.debug("ONNX Runtime's libraries are not kept: {} is not an absolute path", root);
      return null;
    }
    try {
      Class<?> binding = Class.forName("ai.onnxruntime.OnnxRuntime"); // its static set-up only names the platform
      java.lang.reflect.Field platform = binding.getDeclaredField("OS_ARCH_STR");
      platform.setAccessible(true);
      String os = (String) platform.get(null);
      StringBuilder folder = new StringBuilder(os);
      List<Library> libraries = new ArrayList<>();
      for (String name : LIBRARIES) {
        String file = System.mapLibraryName(name);
        URL url = binding.getResource("/ai/onnxruntime/native/" + os + "/" + file);
        if (url == null) {
          LOG.debug("ONNX Runtime's jar has no {} for {}: the binding says what is missing as it loads", file, os);
          return null;
        }
        Library library = Library.of(file, url);
        libraries.add(library);
        folder.append('-').append(String.format("%08x", library.crc));
      }
      PrivateDirectory.create(root);
      String refusal = PrivateDirectory.refusal(root, false);
      if (refusal != null) {
        LOG.warn("ONNX Runtime's libraries are not kept in {}: {}; each process copies them under java.io.tmpdir instead", root, refusal);
        return null;
      }
      Path dir = root.resolve(folder.toString());
      PrivateDirectory.create(dir);
      refusal = PrivateDirectory.refusal(dir, false);
      if (refusal != null) {
        LOG.warn("ONNX Runtime's libraries are not kept in {}: {}; each process copies them under java.io.tmpdir instead", dir, refusal);
        return null;
      }
      for (Library library : libraries) {
        library.copyInto(dir);
      }
      removeStaleParts(dir);
      return dir;
    } catch (IOException | ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("ONNX Runtime's libraries are not kept in {} ({}); each process copies them under java.io.tmpdir instead", root, e.toString());
      return null;
    }
  }

  /** A library in the binding's jar: its file name, where to read it, its size and CRC-32. */
  private record Library(String file, URL url, long size, long crc) {
    static Library of(String file, URL url) throws IOException {
      URLConnection connection = url.openConnection();
      if (connection instanceof JarURLConnection jar && jar.getJarEntry() != null
          && jar.getJarEntry().getCrc() >= 0 && jar.getJarEntry().getSize() >= 0) {
        return new Library(file, url, jar.getJarEntry().getSize(), jar.getJarEntry().getCrc());
      }
      CRC32 crc = new CRC32(); // a directory of classes, or an entry the jar gives no CRC for: read it once
      long size = 0;
      try (InputStream in = url.openStream()) {
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
          crc.update(buffer, 0, n);
          size += n;
        }
      }
      return new Library(file, url, size, crc.getValue());
    }

    /** Copies this library into {@code dir} unless a whole copy is there: written beside its name, then renamed. */
    void copyInto(Path dir) throws IOException {
      Path target = dir.resolve(file);
      if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == size) {
        return;
      }
      Path part = Files.createTempFile(dir, file + ".", ".part");
      try {
        try (InputStream in = url.openStream()) {
          Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
        }
        if (Files.size(part) != size) {
          throw new IOException(file + " read " + Files.size(part) + " bytes from the jar, which records " + size);
        }
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(part);
      }
    }
  }

  /** Deletes the {@code .part} files an hour old or more: copies by processes killed as they wrote them. */
  private static void removeStaleParts(Path dir) throws IOException {
    // the file system's clock, which wrote the times compared here, is the system's: no other source applies
    FileTime before = FileTime.from(dev.rcrt.core.TimeSource.system().instant().minus(STALE_PART));
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().endsWith(".part") && Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS).compareTo(before) < 0) {
          Files.deleteIfExists(f);
        }
      }
    }
  }
}
