package dev.rcrt.examples;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Testing a time limit without waiting for it: the runner measures deadlines on a test clock. */
public final class TestingExample {
  private TestingExample() {}

  /** The error code of a call to tool {@code slow} (limit 30 s) whose handler moves the clock past it. */
  static @Nullable String timeoutWithoutWaiting(BreadcrumbStore store) {
    // docs:begin clock
    TestClock clock = new TestClock();   // the store holds a tool record named "slow" (limits.timeout_ms: 30000)
    ToolRunner runner = ToolRunner.builder(store).timeSource(clock)
        .handler("slow", (in, ctx) -> { clock.advance(Duration.ofSeconds(31)); Thread.sleep(60_000); return in; })
        .build();
    String code = runner.call(ToolRequest.of("slow", RcrtJson.object(), "me")).errorCode();   // "tool_timeout", at once
    // docs:end clock
    runner.close();
    return code;
  }
}
