package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.BoundedLines;
import dev.rcrt.tools.js.internal.worker.JsWorkerMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One JavaScript worker process ({@link JsWorkerMain}) seen from the host: its frames in and out,
 * the programs it has been sent, and the last few kilobytes of its standard error for when it
 * fails (kept only for that message, which the caller scrubs, and never logged: a worker's error
 * output may quote what it was running). Used by one call at a time.
 */
final class WorkerProcess {
  /** The exit code of a worker whose heap ran out ({@code -XX:+ExitOnOutOfMemoryError}). */
  static final int OUT_OF_MEMORY = 3;
  /** The longest frame a worker may send: a result, or a request for the host. */
  static final long MAX_FRAME_BYTES = 64L * 1024 * 1024;
  private static final int STDERR_TAIL = 4096;

  private final Process process;
  private final BoundedLines frames;
  private final OutputStream input;
  private final StringBuilder stderr = new StringBuilder();
  private final Set<String> programs = ConcurrentHashMap.newKeySet();

  private WorkerProcess(Process process) {
    this.process = process;
    this.frames = new BoundedLines(process.getInputStream(), MAX_FRAME_BYTES, Long.MAX_VALUE, "the JavaScript worker's output", "rcrt-js-worker-out");
    this.input = process.getOutputStream();
    Thread drain = new Thread(() -> drain(process.getErrorStream()), "rcrt-js-worker-err");
    drain.setDaemon(true);
    drain.start();
  }

  /**
   * What GraalJS 24.2 (the last line that runs on Java 17) needs on JDK 24 and newer so that the JVM
   * prints no warnings about it: native access for Truffle, and {@code sun.misc.Unsafe} memory
   * access. Neither option exists before those JDKs.
   */
  static final List<String> GRAAL_ON_NEW_JDKS =
      Runtime.version().feature() >= 24
          ? List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow")
          : List.of();

  /**
   * Starts a worker and waits until its engine is up.
   *
   * @param heapMegabytes the worker's maximum heap ({@code -Xmx})
   * @param launch the class path and main class ({@link WorkerLaunch#arguments()})
   * @throws IOException when the process cannot be started or does not become ready within {@code
   *     startup}, naming why and the end of its standard error; the process is gone then
   */
  static WorkerProcess start(int heapMegabytes, Duration startup, List<String> launch) throws IOException {
    List<String> command = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heapMegabytes + "m",
        "-XX:+ExitOnOutOfMemoryError",
        "-XX:+DisplayVMOutputToStderr",
        "-Xlog:all=warning:stderr",
        "-XX:+UseSerialGC",
        "-Xshare:auto"));
    command.addAll(GRAAL_ON_NEW_JDKS);
    command.addAll(launch);
    WorkerProcess worker = new WorkerProcess(new ProcessBuilder(command).start());
    String failure;
    try {
      JsonNode ready = worker.next(startup);
      if (ready != null && ready.path("ready").asBoolean()) {
        return worker;
      }
      failure = ready == null ? "it exited while starting" : "its first line was not the ready frame";
    } catch (BoundedLines.Failure | IOException e) {
      failure = e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = "interrupted while waiting for it";
    }
    worker.kill();
    throw new IOException("the worker did not start: " + failure + " (" + worker.describeExit() + ")");
  }

  /** Sends one frame. */
  void send(JsonNode frame) throws IOException {
    byte[] line = (RcrtJson.write(frame) + "\n").getBytes(StandardCharsets.UTF_8);
    input.write(line);
    input.flush();
  }

  /**
   * The next frame, waiting at most {@code wait}.
   *
   * @return the frame, or null when the worker's output ended (it exited)
   * @throws BoundedLines.Failure {@code WAITED_TOO_LONG} when none came in time, {@code TOO_LARGE}
   *     past {@link #MAX_FRAME_BYTES}, {@code BROKEN} when the pipe failed
   * @throws IOException when the worker wrote something that is not a frame
   */
  @Nullable JsonNode next(Duration wait) throws BoundedLines.Failure, InterruptedException, IOException {
    String line = frames.next(wait);
    if (line == null) {
      return null;
    }
    try {
      return RcrtJson.parse(line);
    } catch (RuntimeException e) {
      throw new IOException("the worker wrote a line that is not a frame: " + line.substring(0, Math.min(line.length(), 120)));
    }
  }

  /** Whether this worker has been sent the program with this checksum. */
  boolean knows(String checksum) {
    return programs.contains(checksum);
  }

  void remember(String checksum) {
    programs.add(checksum);
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Ends the worker at once, whatever it is running. */
  void kill() {
    process.destroyForcibly();
    frames.close();
  }

  /**
   * The worker's exit code, once it has exited (waiting up to two seconds for it), or -1 while it
   * still runs.
   */
  int exitCode() {
    try {
      return process.waitFor(2, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** {@code exit code N: <the end of its standard error>}. */
  String describeExit() {
    int code = exitCode();
    String tail = stderr();
    return (code < 0 ? "still running" : "exit code " + code) + (tail.isEmpty() ? "" : ": " + tail);
  }

  /** The last few kilobytes the worker wrote to standard error, on one line. */
  String stderr() {
    synchronized (stderr) {
      return stderr.toString().strip().replaceAll("\\s*\\R\\s*", " | ");
    }
  }

  private void drain(InputStream err) {
    byte[] buffer = new byte[4096];
    try (err) {
      int n;
      while ((n = err.read(buffer)) >= 0) {
        String text = new String(buffer, 0, n, StandardCharsets.UTF_8);
        synchronized (stderr) {
          stderr.append(text);
          if (stderr.length() > STDERR_TAIL) {
            stderr.delete(0, stderr.length() - STDERR_TAIL);
          }
        }
      }
    } catch (IOException e) {
      // the worker is gone
    }
  }
}
