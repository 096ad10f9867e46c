package dev.tide.stream.source;

import dev.tide.common.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The pace of a rate-limited source over time: {@code rate} events per second from the start, then
 * each step's rate from its offset on ({@code "30s:40000,90s:10000"}: 40,000 events/s from 30 s,
 * 10,000 from 90 s). Immutable.
 */
public final class RateSchedule {
  private record Step(long atMs, long rate) {}

  private final List<Step> steps;

  private RateSchedule(List<Step> steps) {
    this.steps = List.copyOf(steps);
  }

  /**
   * @param rate the rate from offset 0
   * @param text steps {@code OFFSET:RATE} separated by commas, offsets rising; empty for none
   * @throws IllegalArgumentException naming the step that is malformed
   */
  public static RateSchedule of(long rate, String text) {
    List<Step> steps = new ArrayList<>();
    steps.add(new Step(0, rate));
    if (!text.isBlank()) {
      for (String part : text.split(",")) {
        int colon = part.indexOf(':');
        if (colon < 0) {
          throw new IllegalArgumentException("step '" + part.trim() + "' must be OFFSET:RATE, such as 30s:40000");
        }
        Duration at;
        long r;
        try {
          at = Durations.parse(part.substring(0, colon).trim());
          r = Long.parseLong(part.substring(colon + 1).trim());
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("step '" + part.trim() + "' must be OFFSET:RATE, such as 30s:40000");
        }
        if (r <= 0 || at.toMillis() <= steps.get(steps.size() - 1).atMs()) {
          throw new IllegalArgumentException("step '" + part.trim() + "' must have a positive rate and an offset after the previous step's");
        }
        steps.add(new Step(at.toMillis(), r));
      }
    }
    return new RateSchedule(steps);
  }

  /** Whether {@code text} parses as steps (for option validation). */
  static boolean valid(String text) {
    try {
      of(1, text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Events due in the first {@code elapsedMs} milliseconds. */
  public long due(long elapsedMs) {
    double events = 0;
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      if (elapsedMs <= s.atMs()) {
        break;
      }
      long end = i + 1 < steps.size() ? Math.min(elapsedMs, steps.get(i + 1).atMs()) : elapsedMs;
      events += (end - s.atMs()) * (double) s.rate() / 1000;
    }
    return (long) events;
  }

  /** The rate at {@code elapsedMs}. */
  public long rateAt(long elapsedMs) {
    long r = steps.get(0).rate();
    for (Step s : steps) {
      if (elapsedMs >= s.atMs()) {
        r = s.rate();
      }
    }
    return r;
  }
}
