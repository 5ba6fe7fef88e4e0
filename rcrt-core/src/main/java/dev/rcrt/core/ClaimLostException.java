package dev.rcrt.core;

import java.util.Objects;

/**
 * A worker acted on work it no longer holds: its {@link WorkClaims} claim was taken over by a
 * later worker (a larger fencing token), completed, or its lease ran out before it could renew it
 * (the process was stalled by a pause, {@code SIGSTOP} or a slow store). Nothing was written: a
 * fenced write ({@link BreadcrumbStore#create(BreadcrumbCreate, WorkClaims.Claim)}) checks the
 * claim in the same statement as the write. Code {@code "claim_lost"}; not retriable: the worker
 * must abandon its step and leave the work to whoever holds it now.
 */
public class ClaimLostException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /** The key whose claim was lost, such as {@code agent.run:<id>}. */
  private final String key;

  /**
   * @param key the claimed key
   * @param why what was found, in words (taken over, lease ran out)
   */
  public ClaimLostException(String key, String why) {
    super("claim_lost", "the claim on '" + Objects.requireNonNull(key, "key") + "' is no longer held (" + why
        + "); nothing was written: the step is abandoned and left to the worker that holds the claim now", false, null);
    this.key = key;
  }

  /** The key whose claim was lost. */
  public String key() {
    return key;
  }
}
