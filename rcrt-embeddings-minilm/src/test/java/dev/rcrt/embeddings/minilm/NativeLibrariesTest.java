package dev.rcrt.embeddings.minilm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.testing.LogWaits;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where ONNX Runtime's native libraries live ({@link NativeLibraries}, {@link NativeEnvironment}):
 * the binding copied them (16.6 MB on linux-x64) under {@code java.io.tmpdir} in every process and
 * deleted them only at a normal exit, so each killed process left them for good (664 copies, 13 GB,
 * after a day of this project's tests). Processes here are killed with SIGKILL, which runs no
 * shutdown hook and deletes nothing on exit; each has a temporary directory and a cache directory of
 * the test's own ({@code java.io.tmpdir}, {@code XDG_CACHE_HOME}).
 */
class NativeLibrariesTest {
  private static final Duration WITHIN = Duration.ofSeconds(120);
  @TempDir Path dir;

  @Test
  void aProcessKilledWithTheModelLoadedLeavesNothingInItsTemporaryDirectory() throws Exception {
    Path cache = dir.resolve("cache");
    Embedder e = start("loaded", cache);
    try {
      LogWaits.until(e.log, EmbedUntilStopped.EMBEDDING, e.process, WITHIN);
    } finally {
      e.kill();
    }
    assertThat(files(e.tmp)).as("what the killed process left in its temporary directory; it wrote: %s", Files.readString(e.log)).isEmpty();
    assertThat(wholeLibraries(cache)).as("the libraries kept in the user's cache").isEqualTo(2);
  }

  @Test
  void processesKilledAtRandomMomentsWhileTheModelLoadsLeaveNothingInTheirTemporaryDirectoriesAndNoBrokenLibrary() throws Exception {
    Path cache = dir.resolve("cache");
    List<Embedder> killed = new ArrayList<>();
    for (int i = 0; i < 6; i++) { // one cache, as a user's processes share: the first copies, the others find the copies or race
      Embedder e = start("killed-" + i, cache);
      killed.add(e);
      try {
        LogWaits.until(e.log, EmbedUntilStopped.LOADING, e.process, WITHIN);
        TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(i < 3 ? 300 : 1200)); // the moment of the attack, not a wait
      } finally {
        e.kill();
      }
    }
    for (Embedder e : killed) {
      // the binding makes its own (empty) directory as it starts to load, before anything of the SDK's can run: killed then, it stays
      assertThat(files(e.tmp)).as("what %s left in its temporary directory; it wrote: %s", e.name, Files.readString(e.log))
          .allMatch(f -> f.startsWith("onnxruntime-java") && !f.contains("/") && !f.contains("bytes"));
    }
    Embedder last = start("after", cache); // loads from whatever the killed ones left, and must work
    try {
      LogWaits.until(last.log, EmbedUntilStopped.EMBEDDING, last.process, WITHIN);
    } finally {
      last.kill();
    }
    assertThat(wholeLibraries(cache)).as("the libraries kept in the user's cache, each whole").isEqualTo(2);
    assertThat(files(last.tmp)).as("what the last process left in its temporary directory").isEmpty();
  }

  @Test
  void aCacheDirectoryOthersMayWriteIsNotUsedAndTheBindingsOwnCopiesAreDeletedOnceLoaded() throws Exception {
    // whoever can write the directory can run code in every process that loads the model
    Path cache = dir.resolve("cache");
    Path open = Files.createDirectories(cache.resolve("rcrt").resolve("onnxruntime"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Embedder e = start("untrusted", cache);
    try {
      LogWaits.until(e.log, EmbedUntilStopped.EMBEDDING, e.process, WITHIN);
    } finally {
      e.kill();
    }
    assertThat(Files.readString(e.log)).contains("ONNX Runtime's libraries are not kept in " + open, "may be written by others");
    assertThat(files(open)).as("nothing written where others may write").isEmpty();
    assertThat(files(e.tmp)).as("what the killed process left in its temporary directory").isEmpty();
  }

  @Test
  void withoutAHomeDirectoryNothingIsKeptAndNothingIsWrittenWhereTheProcessRuns() throws Exception {
    // a user the system does not list (a container's arbitrary uid): the JVM's user.home is "?", a path relative to the working directory
    Path work = Files.createDirectories(dir.resolve("work"));
    Embedder e = start("homeless", null, work, "-Duser.home=?");
    try {
      LogWaits.until(e.log, EmbedUntilStopped.EMBEDDING, e.process, WITHIN);
    } finally {
      e.kill();
    }
    // DJL's tokenizer and JNA make ?/.djl.ai and ?/.cache/JNA there themselves (their choice, not the SDK's); nothing of ours may be
    assertThat(files(work)).as("what the process wrote where it ran; it wrote: %s", Files.readString(e.log))
        .noneMatch(f -> f.contains("rcrt") || f.contains("onnxruntime"));
    assertThat(files(e.tmp)).as("what the killed process left in its temporary directory").isEmpty();
  }

  /** A process embedding until it is killed ({@link EmbedUntilStopped}), with a temporary and a cache directory of its own. */
  private Embedder start(String name, Path cache) throws IOException {
    return start(name, cache, dir);
  }

  /** {@link #start(String, Path)} in {@code work}, with JVM {@code options}; {@code cache} null: no {@code XDG_CACHE_HOME}. */
  private Embedder start(String name, @Nullable Path cache, Path work, String... options) throws IOException {
    Path tmp = Files.createDirectories(dir.resolve(name + "-tmp"));
    Path log = dir.resolve(name + ".log");
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Djava.io.tmpdir=" + tmp,
        "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log")));
    command.addAll(List.of(options));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), EmbedUntilStopped.class.getName()));
    ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.remove("RCRT_ONNXRUNTIME_DIR");
    env.remove("XDG_CACHE_HOME");
    if (cache != null) {
      env.put("XDG_CACHE_HOME", cache.toString());
    }
    return new Embedder(name, pb.start(), tmp, log);
  }

  private record Embedder(String name, Process process, Path tmp, Path log) {
    void kill() throws InterruptedException {
      process.destroyForcibly(); // SIGKILL: no shutdown hook runs, nothing is deleted on exit
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ended", name).isTrue();
    }
  }

  /** Every file and directory under {@code root}, with the size of each file. */
  private static List<String> files(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(f -> !f.equals(root)).map(f -> root.relativize(f) + (Files.isRegularFile(f) ? " (" + size(f) + " bytes)" : "")).toList();
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * How many of the binding's two libraries are kept under {@code cache}, each in one piece: the
   * same bytes as in the binding's jar. Files being copied ({@code .part}) are not counted.
   */
  private static int wholeLibraries(Path cache) throws Exception {
    Class<?> binding = Class.forName("ai.onnxruntime.OnnxRuntime");
    java.lang.reflect.Field platform = binding.getDeclaredField("OS_ARCH_STR");
    platform.setAccessible(true);
    int whole = 0;
    try (Stream<Path> all = Files.walk(cache.resolve("rcrt").resolve("onnxruntime"))) {
      for (Path f : all.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".part")).toList()) {
        URL original = binding.getResource("/ai/onnxruntime/native/" + platform.get(null) + "/" + f.getFileName());
        assertThat(original).as("%s is one of the binding's libraries", f).isNotNull();
        try (var in = original.openStream()) {
          assertThat(Files.readAllBytes(f)).as("%s is whole", f).isEqualTo(in.readAllBytes());
        }
        whole++;
      }
    }
    return whole;
  }
}
