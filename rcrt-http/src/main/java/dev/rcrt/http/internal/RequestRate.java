package dev.rcrt.http.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import jakarta.servlet.http.HttpServletRequest;
import dev.rcrt.core.TimeSource;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;

/**
 * How many requests that cost something (a message that starts a model run) one client address
 * may send a minute: a token bucket per address (Bucket4j) of {@code perMinute} tokens, refilled
 * evenly over the minute on the server's {@link TimeSource}, so a client may burst up to the whole
 * minute's allowance and then one request every {@code 60 / perMinute} seconds. At most 10,000
 * addresses are remembered (Caffeine, least recently seen forgotten first); behind a proxy every
 * client shares the proxy's address. Thread-safe.
 */
public final class RequestRate {
  private static final int ADDRESSES = 10_000;

  private final int perMinute;
  private final TimeMeter meter;
  private final Cache<String, Bucket> buckets = Caffeine.newBuilder().maximumSize(ADDRESSES).build();

  /**
   * @param perMinute requests a client address may send a minute, at least 1
   */
  public RequestRate(int perMinute, TimeSource time) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("the requests a minute must be at least 1, found " + perMinute);
    }
    this.perMinute = perMinute;
    this.meter = new TimeMeter() {
      @Override
      public long currentTimeNanos() {
        return time.nanoTime();
      }

      @Override
      public boolean isWallClockBased() {
        return false;
      }
    };
  }

  /**
   * Takes one request of the request's client address (its peer, {@code getRemoteAddr}) from its allowance.
   *
   * @return 0 when the request may go on, else the whole seconds (at least 1) until it may be sent
   *     again, for a {@code Retry-After} header
   */
  public long take(HttpServletRequest request) {
    String client = String.valueOf(request.getRemoteAddr());
    Bucket bucket = buckets.get(client, k -> Bucket.builder()
        .addLimit(Bandwidth.builder().capacity(perMinute).refillGreedy(perMinute, Duration.ofMinutes(1)).build())
        .withCustomTimePrecision(meter)
        .build());
    ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
    return probe.isConsumed() ? 0 : Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
  }
}
