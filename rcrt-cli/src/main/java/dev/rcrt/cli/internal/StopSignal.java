package dev.rcrt.cli.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * How a command ends on SIGTERM or Ctrl-C (SIGINT). {@code Main} opens one around every command,
 * interrupting the command's thread, so a one-shot command ({@code chat}, {@code tool call}, {@code
 * search}) unwinds through its own closes and the process exits with 128 + the signal's number; a
 * serving command ({@code runner}, {@code a2a serve}, {@code mcp serve}) opens its own, which waits: the signal does not start the JVM's shutdown; it only tells the command's thread
 * to stop ({@link #await()} returns), and the command closes everything it opened in its own order
 * (stop taking work, finish what is in flight, close the store and with it the embedding model,
 * then the pool) and returns, and the process exits with its status, 0.
 *
 * <p>Why not a shutdown hook: the JVM runs every shutdown hook at once, and ONNX Runtime registers
 * one that releases its native environment. A process whose embedding thread was still loading or
 * running MiniLM when that hook ran crashed with SIGSEGV (seen in {@code SharedStoreTest} and
 * reproduced by {@code ShutdownSignalsTest}); here nothing native runs any more when the hooks do.
 * A second signal while the command closes ends the process at once (status 128 + the signal's
 * number), for a close that hangs. Open it before the store, close it after (try-with-resources):
 * closing restores the signals' previous handlers. Thread-safe.
 */
public final class StopSignal implements AutoCloseable {
  private static final Signal TERM = new Signal("TERM");
  private static final Signal INT = new Signal("INT");

  private final CountDownLatch stop = new CountDownLatch(1);
  private final AtomicInteger received = new AtomicInteger();
  private final SignalHandler previousTerm;
  private final SignalHandler previousInt;
  private volatile Runnable onStop = () -> {};
  private volatile int first;

  /** Takes over SIGTERM and SIGINT until {@link #close()}. */
  public StopSignal() {
    SignalHandler handler = signal -> {
      if (received.getAndIncrement() > 0) {
        System.exit(128 + signal.getNumber()); // asked twice: the close hangs, or the user means it
      }
      first = signal.getNumber();
      stop.countDown();
      onStop.run();
    };
    this.previousTerm = Signal.handle(TERM, handler);
    this.previousInt = Signal.handle(INT, handler);
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
  public void onStop(Runnable action) {
    this.onStop = action;
  }

  /** The number of the first signal received (15 for SIGTERM, 2 for SIGINT), or 0 when none was. */
  public int received() {
    return first;
  }

  /** Restores the signals' previous handlers: from now on they end the process as the JVM does. */
  @Override
  public void close() {
    // (nothing to release besides the handlers)
    Signal.handle(TERM, previousTerm);
    Signal.handle(INT, previousInt);
  }
}
