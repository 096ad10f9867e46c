package dev.tide.cli.playground;

import dev.tide.meta.MetaStats;
import dev.tide.optimizer.keeper.KeeperAction;
import java.util.List;
import java.util.Map;

/**
 * One reading of the running playground, taken by the driver once per second.
 *
 * @param elapsedNanos time since the playground started
 * @param events committed events of each view's source stream (all tables), by view name
 * @param rows committed rows of each view, by view name
 * @param stats the barrier pipeline at the time of the reading
 * @param optimizers registered optimizer instances of all groups
 * @param compactionTasks compaction tasks planned or running in all groups
 * @param actions the scale keeper's latest actions with their reasons (group {@code default}), oldest first
 */
public record Sample(long elapsedNanos, Map<String, Long> events, Map<String, Long> rows, MetaStats stats, int optimizers,
    int compactionTasks, List<KeeperAction> actions) {
  /** The actions in this reading that come after {@code printed} (all of them when it is null or no longer listed). */
  List<KeeperAction> actionsAfter(KeeperAction printed) {
    int i = printed == null ? -1 : actions.lastIndexOf(printed);
    if (i < 0 && printed != null) {
      return actions.stream().filter(a -> a.atMs() > printed.atMs()).toList();
    }
    return actions.subList(i + 1, actions.size());
  }

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
