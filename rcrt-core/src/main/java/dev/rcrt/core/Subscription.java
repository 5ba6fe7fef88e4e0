package dev.rcrt.core;

/** A live subscription. {@link #close()} stops delivery; closing twice is harmless. */
public interface Subscription extends AutoCloseable {
  /** Stops delivery. Never throws. */
  @Override
  void close();
}
