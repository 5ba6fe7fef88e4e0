package dev.rcrt.tools.testing;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolExchange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A caller that records what a tool told and asked it, in order: progress as {@code progress P/T
 * MESSAGE}, log messages as {@code LEVEL MESSAGE}; it answers every sampling {@code four} and every
 * elicitation by accepting {@code {"name": "Ada"}}. Thread-safe.
 */
public final class RecordingExchange implements ToolExchange {
  public final List<String> seen = new CopyOnWriteArrayList<>();
  public final List<Sampling> samplings = new CopyOnWriteArrayList<>();
  public final List<Elicitation> elicitations = new CopyOnWriteArrayList<>();

  @Override
  public void progress(double progress, @Nullable Double total, @Nullable String message) {
    seen.add("progress " + progress + "/" + total + " " + message);
  }

  @Override
  public void log(LogLevel level, String message) {
    seen.add(level.wire() + " " + message);
  }

  @Override
  public Sampled sample(Sampling request) {
    samplings.add(request);
    return new Sampled("four", "test-model", "endTurn");
  }

  @Override
  public Elicited elicit(Elicitation request) {
    elicitations.add(request);
    return new Elicited(Elicited.Action.ACCEPT, RcrtJson.object().put("name", "Ada"));
  }
}
