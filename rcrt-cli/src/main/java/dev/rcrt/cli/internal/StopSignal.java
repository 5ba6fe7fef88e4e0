package dev.rcrt.cli.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How a serving command ({@code runner}, {@code a2a serve}, {@code mcp serve}) ends on SIGTERM or
 * Ctrl-C: the shutdown hook only tells the command's thread to stop ({@link #await()} returns) and
 * waits, at most 90 s, for the command to close everything it opened, in its own order (stop taking
 * work, finish what is in flight, close the store and with it the embedding model, then the pool);
 * then the process ends with status 0. The JVM never exits while a thread of the command is still
 * inside native code (ONNX Runtime loading or running MiniLM crashed the process with SIGSEGV when
 * it did). Open it before the store, close it after (try-with-resources). Thread-safe.
 */
final class StopSignal implements AutoCloseable {
  /** The longest a stop waits for the command to close what it opened. */
  private static final long CLOSE_WAIT_SECONDS = 90;

  private final CountDownLatch stop = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread hook;
  private volatile Runnable onStop = () -> {};

  StopSignal(String name) {
    this.hook = new Thread(() -> {
      stop.countDown();
      onStop.run();
      try {
        if (stopped.await(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
          Runtime.getRuntime().halt(0);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, name);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Waits until the process is asked to stop. */
  void await() throws InterruptedException {
    stop.await();
  }

  /**
   * Runs {@code action} on the signal's thread when a stop is asked, for a command that waits on
   * something other than {@link #await()} (a stdio server waiting for its input to end): it ends
   * that wait. Set it once, before the wait.
   */
  void onStop(Runnable action) {
    this.onStop = action;
  }

  /** The command closed what it opened: a stop under way ends the process now, with status 0. */
  @Override
  public void close() {
    stopped.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running: it ends the process
    }
  }
}
