package dev.rcrt.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.TtlType;
import dev.rcrt.core.ValidationException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * RCRT's TTL rules: {@code ttl} (an instant), {@code ttl_type} ({@code never}, {@code datetime},
 * {@code duration}, {@code usage}, {@code hybrid}) and {@code ttl_config} ({@code duration}: an
 * ISO-8601 duration such as {@code "PT1H"}, RCRT's {@code "30s"}, {@code "30m"}, {@code "2h"}, {@code "1d"}, or a number
 * of seconds; {@code max_reads}: a count).
 *
 * <ul>
 *   <li>{@code datetime}: expires at {@code ttl};
 *   <li>{@code duration}: at {@code ttl} if given, else {@code created_at + duration};
 *   <li>{@code usage}: after {@code max_reads} reads;
 *   <li>{@code hybrid}: whichever of the time and the reads comes first.
 * </ul>
 * Without {@code ttl_type}, a {@code ttl} alone means {@code datetime}.
 */
public final class Expiry {
  private static final Pattern SHORTHAND = Pattern.compile("(\\d{1,9})([smhd])");

  private Expiry() {}

  /**
   * Checks a create payload's TTL settings.
   *
   * @throws ValidationException naming the missing or malformed field
   */
  public static void validate(BreadcrumbCreate c) {
    TtlType type = type(c.ttlType(), c.ttl());
    String where = "breadcrumb '" + c.title() + "' ";
    switch (type) {
      case DATETIME -> {
        if (c.ttl() == null) {
          throw new ValidationException(where + "ttl_type datetime needs ttl (an ISO-8601 instant)");
        }
      }
      case DURATION -> {
        if (c.ttl() == null && duration(c.ttlConfig(), where) == null) {
          throw new ValidationException(where + "ttl_type duration needs ttl_config.duration (e.g. \"PT1H\" or seconds)");
        }
      }
      case USAGE -> maxReads(c.ttlConfig(), where, true);
      case HYBRID -> {
        maxReads(c.ttlConfig(), where, false);
        duration(c.ttlConfig(), where);
      }
      case NEVER -> {}
    }
  }

  /** Whether {@code b}, read {@code reads} times so far, has expired at {@code now}. */
  public static boolean expired(Breadcrumb b, long reads, Instant now) {
    Instant at = expiresAt(b);
    Long max = maxReads(b);
    return (at != null && !now.isBefore(at)) || (max != null && reads >= max);
  }

  /**
   * When {@code b} expires by time, or null when its TTL has no time part: {@code ttl}, else
   * {@code created_at + ttl_config.duration}; null for {@code usage} and {@code never}. With {@link
   * #maxReads(Breadcrumb)}, what a database needs to judge {@link #expired} in a query: expired
   * when {@code now >= expiresAt} or {@code reads >= maxReads}.
   */
  public static @Nullable Instant expiresAt(Breadcrumb b) {
    TtlType type = type(b.ttlType(), b.ttl());
    if (type == TtlType.NEVER || type == TtlType.USAGE) {
      return null;
    }
    if (b.ttl() != null) {
      return b.ttl();
    }
    Duration d = duration(b.ttlConfig(), "");
    return d == null ? null : b.createdAt().plus(d);
  }

  /** After how many reads {@code b} expires, or null when reads do not count. */
  public static @Nullable Long maxReads(Breadcrumb b) {
    return countsReads(b) ? maxReads(b.ttlConfig(), "", false) : null;
  }

  /** Whether reads of {@code b} count toward its expiry. */
  public static boolean countsReads(Breadcrumb b) {
    TtlType type = type(b.ttlType(), b.ttl());
    return type == TtlType.USAGE || type == TtlType.HYBRID;
  }

  private static TtlType type(@Nullable TtlType type, @Nullable Instant ttl) {
    return type != null ? type : ttl != null ? TtlType.DATETIME : TtlType.NEVER;
  }

  private static @Nullable Duration duration(@Nullable JsonNode config, String where) {
    JsonNode d = config == null ? null : config.get("duration");
    if (d == null || d.isNull()) {
      return null;
    }
    if (d.isNumber()) {
      return Duration.ofMillis(Math.round(d.asDouble() * 1000));
    }
    Matcher shorthand = SHORTHAND.matcher(d.asText().trim());
    if (shorthand.matches()) { // RCRT's own form: 30s, 30m, 2h, 1d
      long n = Long.parseLong(shorthand.group(1));
      return switch (shorthand.group(2)) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(d.asText());
    } catch (DateTimeParseException e) {
      throw new ValidationException(where + "ttl_config.duration: '" + d.asText()
          + "' is neither an ISO-8601 duration (PT1H), RCRT's 30s/30m/2h/1d, nor a number of seconds");
    }
  }

  private static @Nullable Long maxReads(@Nullable JsonNode config, String where, boolean required) {
    JsonNode m = config == null ? null : config.get("max_reads");
    if (m == null || m.isNull()) {
      if (required) {
        throw new ValidationException(where + "ttl_type usage needs ttl_config.max_reads");
      }
      return null;
    }
    if (!m.canConvertToLong() || m.asLong() < 1) {
      throw new ValidationException(where + "ttl_config.max_reads: expected a positive whole number, found " + m);
    }
    return m.asLong();
  }
}
