package dev.rcrt.embeddings.minilm;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps ONNX Runtime's native environment standing until the process is gone.
 *
 * <p>ONNX Runtime's Java binding registers a JVM shutdown hook that releases its native
 * environment ({@code OrtEnvironment}'s {@code OrtEnvCloser}). The JVM runs every hook at once, so
 * in a process stopped while the model loads or runs (SIGTERM to a Spring Boot application, {@code
 * System.exit}) the model went on in a released environment, and the process crashed with SIGSEGV
 * or SIGBUS in {@code libonnxruntime.so} ({@code MiniLmShutdownTest}: 2 of 20 processes stopped as
 * the model loaded). The native environment is one reference-counted object ({@code
 * OrtEnv::GetInstance} counts a reference, {@code OrtEnv::Release} drops one and frees it at
 * zero): creating it once more through the binding's own native entry holds a second reference,
 * so the hook's release leaves it standing and the process ends with nothing freed under a running
 * model. The binding has no public way to do this; where its private entry is missing (another
 * version), nothing is held and a warning says so. The reference is never given back: the
 * environment lives as long as the process, as the binding's own does. A process stopped as the
 * binding loads may run the hook before the second reference is taken (the environment is then
 * freed, and a model loaded on the binding's stale handle crashed in {@code
 * OrtSession.createSession}: 4 of 13 runs of {@code MiniLmShutdownTest} on JDK 25), so once the
 * reference is held the JVM is asked whether its shutdown has begun, and if so no model loads in
 * that process ({@link #hold}).
 *
 * <p>The binding also copies its native libraries (16.6 MB on linux-x64) into a directory of its
 * own under {@code java.io.tmpdir} ({@code onnxruntime-java*}) and deletes them only as the JVM
 * exits normally, so every process killed (SIGKILL, the OOM killer, a container stopped after its
 * grace period) left them there for good: 664 of them, 13 GB, after a day of this project's tests.
 * They are now loaded from one lasting copy per user ({@link NativeLibraries}); where that cannot
 * be, the binding's copies are deleted once loaded (a loaded library stays mapped on Linux and
 * macOS). Its directory goes too where the binding has no execution provider beside the CPU's that
 * it could still copy there later ({@code MiniLmShutdownTest}). Where a file cannot be deleted
 * (Windows keeps loaded libraries locked), the binding's deletion at exit is left to do it.
 */
final class NativeEnvironment {
  private static final Logger LOG = LoggerFactory.getLogger(NativeEnvironment.class);
  private static final Object LOCK = new Object();
  private static boolean tried; // guarded by LOCK
  /** Why no model may load in this process, or null; guarded by LOCK. */
  private static @Nullable String refused;

  private NativeEnvironment() {}

  /**
   * Creates the binding's environment (and its hook) if it is not there yet, and holds a second
   * reference to it; once per process.
   *
   * @throws IllegalStateException when the JVM began to shut down before the reference was surely
   *     held: the binding's hook may have freed the environment first, and a model loaded on it
   *     crashed (SIGSEGV in {@code OrtSession.createSession}, {@code MiniLmShutdownTest} on JDK 25);
   *     no model may load in this process then
   */
  static void hold() {
    synchronized (LOCK) {
      if (!tried) {
        tried = true;
        holdOnce();
        if (shuttingDown()) { // not before: the hook had not run when the reference was taken, so it releases only its own
          refused = "the JVM began to shut down as ONNX Runtime loaded, so its shutdown hook may have freed the native environment before"
              + " the SDK held it; no model is loaded in this process";
        }
      }
      if (refused != null) {
        throw new IllegalStateException(refused);
      }
    }
  }

  private static void holdOnce() {
    try {
      Path kept = NativeLibraries.place(System.getenv()); // before the binding loads (its environment's class does): it copies its libraries otherwise
      if (kept != null) {
        System.setProperty(NativeLibraries.PATH_PROPERTY, kept.toString());
      }
      Class<?> environment;
      try {
        environment = Class.forName("ai.onnxruntime.OrtEnvironment");
        environment.getMethod("getEnvironment").invoke(null);
      } finally {
        if (kept != null) { // read once, as the binding loads: the host's own properties are left as they were
          System.clearProperty(NativeLibraries.PATH_PROPERTY);
        }
      }
      Field api = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("ortApiHandle");
      api.setAccessible(true);
      Method create = environment.getDeclaredMethod("createHandle", long.class, int.class, String.class);
      create.setAccessible(true);
      create.invoke(null, api.getLong(null), 2 /* ORT_LOGGING_LEVEL_WARNING */, "rcrt-minilm");
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("ONNX Runtime's native environment is not held ({}): a process stopped while the MiniLM model loads or runs may crash"
          + " in libonnxruntime.so; close the model before the JVM's shutdown begins", e.toString());
    }
    deleteCopiedLibraries();
  }

  /** Whether the JVM's shutdown has begun (it then takes no more hooks). */
  private static boolean shuttingDown() {
    Thread probe = new Thread(() -> {}, "rcrt-minilm-shutdown-probe");
    try {
      Runtime.getRuntime().addShutdownHook(probe);
      Runtime.getRuntime().removeShutdownHook(probe);
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }

  /** Deletes the binding's copies of the libraries it loaded, and their directory when nothing more can be copied there. */
  private static void deleteCopiedLibraries() {
    Path copies;
    boolean cpuOnly;
    try {
      Field directory = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("tempDirectory");
      directory.setAccessible(true);
      copies = (Path) directory.get(null);
      Collection<?> providers = (Collection<?>) Class.forName("ai.onnxruntime.OrtEnvironment").getMethod("getAvailableProviders").invoke(null);
      cpuOnly = providers.size() == 1 && providers.iterator().next().toString().equals("CPU");
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("ONNX Runtime's copies of its native libraries are left in {} ({}): a process killed before it exits normally leaves them"
          + " there (about 17 MB each); delete onnxruntime-java* directories no process uses", System.getProperty("java.io.tmpdir"), e.toString());
      return;
    }
    if (copies == null) { // on Android, where the system loads the libraries: nothing was copied
      return;
    }
    try {
      for (String name : NativeLibraries.LIBRARIES) { // absent when they were loaded from NativeLibraries' folder
        Files.deleteIfExists(copies.resolve(System.mapLibraryName(name)));
      }
      if (cpuOnly) {
        try (var left = Files.list(copies)) {
          if (left.findAny().isEmpty()) {
            Files.delete(copies);
          }
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      LOG.debug("ONNX Runtime's copies in {} are left to its deletion at exit: {}", copies, e.toString());
    }
  }
}
