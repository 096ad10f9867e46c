package dev.tide.common.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints durations as {@code 500ms}, {@code 30s}, {@code 5min}, {@code 2h} (a bare number is
 * ms; units are case-insensitive; {@code m} and {@code min} are minutes). Durations are non-negative
 * whole milliseconds; anything else is refused with an {@link IllegalArgumentException}.
 */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d+)\\s*(ms|s|sec|m|min|h)?");

  private Durations() {}

  public static Duration parse(String text) {
    Matcher m = FORM.matcher(text.trim().toLowerCase(java.util.Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration such as 500ms, 30s, 5min, 2h");
    }
    String unit = m.group(2) == null ? "ms" : m.group(2);
    try {
      long n = Long.parseLong(m.group(1));
      Duration d = switch (unit) {
        case "ms" -> Duration.ofMillis(n);
        case "s", "sec" -> Duration.ofSeconds(n);
        case "m", "min" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
      d.toMillis(); // must be printable by format
      return d;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is out of range: durations must fit in " + Long.MAX_VALUE + " ms");
    }
  }

  /** The shortest exact form of a whole number of milliseconds ({@code parse(format(d))} equals d for d >= 0). */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "min";
    }
    if (ms % 1000 == 0 && ms > 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
