package dev.tide.optimizer.dra;

import dev.tide.optimizer.group.GroupConfig;

/**
 * The demand timer of a running backlog episode. It keeps times, not deadlines: the deadline of the
 * next add is computed each round from the configuration of that round, so a changed
 * {@code scheduler-backlog-timeout} or {@code sustained-backlog-timeout} applies from the next round.
 *
 * @param sinceMs when this episode's demand was first seen
 * @param adds demand-driven adds made in this episode
 * @param lastAddMs when the last of them was made ({@code sinceMs} before the first)
 */
public record BacklogTimer(long sinceMs, int adds, long lastAddMs) {
  /** An episode whose demand is first seen at {@code nowMs}. */
  public static BacklogTimer start(long nowMs) {
    return new BacklogTimer(nowMs, 0, nowMs);
  }

  /** The same episode after an add at {@code nowMs}. */
  public BacklogTimer added(long nowMs) {
    return new BacklogTimer(sinceMs, adds + 1, nowMs);
  }

  /** Whether the next add is the episode's first (gated by scheduler-backlog-timeout). */
  public boolean firstAdd() {
    return adds == 0;
  }

  /** Earliest time of the next add: {@code since + scheduler-backlog-timeout}, then {@code lastAdd + sustained-backlog-timeout}. */
  public long nextAddAtMs(GroupConfig cfg) {
    return firstAdd() ? ScaleDecider.plus(sinceMs, cfg.schedulerBacklogTimeout())
        : ScaleDecider.plus(lastAddMs, cfg.sustainedBacklogTimeout());
  }
}
