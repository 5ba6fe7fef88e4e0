package dev.rcrt.core;

/** A breadcrumb, tool or other named thing does not exist. Code {@code "not_found"}; not retriable. */
public class NotFoundException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /** @param message what was looked for, where, and what to do */
  public NotFoundException(String message) {
    super("not_found", message, false, null);
  }
}
