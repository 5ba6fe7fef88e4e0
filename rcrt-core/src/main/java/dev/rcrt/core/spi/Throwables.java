package dev.rcrt.core.spi;

import java.util.Objects;

/**
 * How the SDK treats a {@link Throwable} thrown by code it does not own (a tool handler, a runtime,
 * an interceptor, a listener, a model client), after OkHttp's {@code RealCall}: every boundary
 * catches {@code Throwable}, finishes its bookkeeping (the future completed, the response recorded,
 * the claim released) and only then lets a {@linkplain #isFatal fatal} error go on.
 *
 * <p>Stateless and thread-safe.
 */
public final class Throwables {
  private Throwables() {}

  /**
   * Whether {@code t} means the JVM itself can no longer be trusted to go on: a {@link
   * VirtualMachineError} ({@link OutOfMemoryError}, {@link InternalError}, {@link UnknownError})
   * other than {@link StackOverflowError}, which unwinds cleanly and belongs to the code that
   * recursed. Everything else ({@link AssertionError}, {@link LinkageError}, {@link
   * ExceptionInInitializerError}, any exception) is a failure of the call that threw it.
   */
  public static boolean isFatal(Throwable t) {
    Objects.requireNonNull(t, "t");
    return t instanceof VirtualMachineError && !(t instanceof StackOverflowError);
  }

  /**
   * Throws {@code t} if it is {@linkplain #isFatal fatal}; returns otherwise. Call it after the
   * bookkeeping of a boundary that caught {@code Throwable}.
   */
  public static void rethrowIfFatal(Throwable t) {
    if (isFatal(t)) {
      throw (VirtualMachineError) t;
    }
  }

  /**
   * {@code "SimpleClassName: message"}, or the class name alone when there is no message: how the
   * SDK's error texts name a caught throwable (never its stack trace).
   */
  public static String describe(Throwable t) {
    String message = t.getMessage();
    return t.getClass().getSimpleName() + (message == null || message.isEmpty() ? "" : ": " + message);
  }
}
