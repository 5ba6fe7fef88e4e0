package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.RunTextListener;
import dev.rcrt.core.Subscription;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.tools.StreamScrubber;
import dev.rcrt.tools.ToolRunner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the text of an executor's model rounds goes as the model streams it: to the executor's
 * {@link StreamListener} (every round of its runs, raw, as the host asked), and to whoever follows
 * a run ({@link #follow}), scrubbed as the text grows ({@link ToolRunner#streamScrubber}). A round is
 * streamed when the host's listener is set, or when its run is followed as the round starts and
 * the round offers tools natively (in the text and envelope protocols the text is the calls). One
 * per executor; thread-safe: one lock for every run, held while a follower is told (followers hand
 * the text on and return).
 */
public final class RunText {
  private static final Logger LOG = LoggerFactory.getLogger(RunText.class);

  private final @Nullable StreamListener everyRound;
  private final ToolRunner runner;
  private final Map<String, List<RunTextListener>> followers = new HashMap<>(); // guarded by this
  private final Map<String, Round> streaming = new HashMap<>(); // guarded by this: the followed round of each run

  public RunText(@Nullable StreamListener everyRound, ToolRunner runner) {
    this.everyRound = everyRound;
    this.runner = runner;
  }

  /** Tells {@code listener} the text of run {@code runId}'s rounds from now on, starting with the round under way. */
  public synchronized Subscription follow(String runId, RunTextListener listener) {
    followers.computeIfAbsent(runId, k -> new ArrayList<>()).add(listener);
    Round now = streaming.get(runId);
    if (now != null && now.shown.length() > 0) {
      tell(listener, now.round, now.shown.toString());
    }
    return () -> {
      synchronized (RunText.this) {
        List<RunTextListener> of = followers.get(runId);
        if (of != null && of.remove(listener) && of.isEmpty()) {
          followers.remove(runId);
        }
      }
    };
  }

  /**
   * The listener of round {@code round} of run {@code runId} for the model call that asks it, or
   * null when nobody takes its text (ask without streaming then). {@link Round#close()} it when the
   * call returns or fails.
   *
   * @param nativeCalls whether the round offers tools natively: only then do followers get its text
   */
  synchronized @Nullable Round round(String runId, int round, boolean nativeCalls) {
    boolean followed = nativeCalls && followers.containsKey(runId);
    if (!followed && everyRound == null) {
      return null;
    }
    Round r = new Round(runId, round, followed);
    if (followed) {
      streaming.put(runId, r);
    }
    return r;
  }

  private static void tell(RunTextListener listener, int round, String delta) {
    try {
      listener.onText(round, delta);
    } catch (RuntimeException e) {
      LOG.debug("a run text listener failed: {}", e.toString());
    }
  }

  /**
   * One model call's text: to the host's listener as it comes, to the run's followers as much of it
   * as can be shown. Only the text since the last part shown is scrubbed again with each fragment
   * (what was shown ends where no secret value begins, so none spans it): each fragment costs the
   * length of a secret value, not of the whole text.
   */
  final class Round implements StreamListener, AutoCloseable {
    private final String runId;
    private final int round;
    private final boolean followed;
    private final StreamScrubber scrubber; // guarded by RunText.this: holds back the raw text not shown yet
    private final StringBuilder shown = new StringBuilder(); // guarded by RunText.this: what followers were given

    private Round(String runId, int round, boolean followed) {
      this.runId = runId;
      this.round = round;
      this.followed = followed;
      this.scrubber = runner.streamScrubber();
    }

    @Override
    public void onToken(String text) {
      if (everyRound != null) {
        everyRound.onToken(text);
      }
      if (followed) {
        synchronized (RunText.this) {
          show(scrubber.add(text));
        }
      }
    }

    /** Shows followers the rest of the text, the ending held back included; the round is over. */
    @Override
    public void close() {
      if (followed) {
        synchronized (RunText.this) {
          show(scrubber.end());
          streaming.remove(runId, this);
        }
      }
    }

    private void show(String delta) {
      if (delta.isEmpty()) {
        return;
      }
      shown.append(delta);
      for (RunTextListener l : List.copyOf(followers.getOrDefault(runId, List.of()))) {
        tell(l, round, delta);
      }
    }
  }
}
