package dev.tide.cli.playground;

import dev.tide.meta.MetaStats;
import java.util.Map;

/**
 * One reading of the running playground, taken by the driver once per second.
 *
 * @param elapsedNanos time since the playground started
 * @param events committed events of each view's source stream (all tables), by view name
 * @param rows committed rows of each view, by view name
 * @param stats the barrier pipeline at the time of the reading
 * @param optimizers registered optimizer instances of all groups
 * @param decision the scale keeper's last decision with its reason (group {@code default}), empty before the first
 */
public record Sample(long elapsedNanos, Map<String, Long> events, Map<String, Long> rows, MetaStats stats, int optimizers,
    String decision) {
  long events(String view) {
    return events.getOrDefault(view, 0L);
  }

  long rows(String view) {
    return rows.getOrDefault(view, 0L);
  }

  long totalEvents() {
    return events.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Events per second of {@code view} between {@code earlier} and this reading. */
  double eventsPerSecond(String view, Sample earlier) {
    long nanos = elapsedNanos - earlier.elapsedNanos;
    return nanos <= 0 ? 0 : (events(view) - earlier.events(view)) * 1e9 / nanos;
  }
}
