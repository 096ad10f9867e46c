package dev.tide.optimizer.dra;

/**
 * The demand timer of a running backlog episode.
 *
 * @param sinceMs when this episode's demand was first seen
 * @param nextAddAtMs earliest time of the next demand-driven add: {@code since + scheduler-backlog-timeout}
 *     for the first add, then {@code lastAdd + sustained-backlog-timeout}
 * @param adds demand-driven adds made in this episode
 */
public record BacklogTimer(long sinceMs, long nextAddAtMs, int adds) {
  /** Whether the next add is the episode's first (gated by scheduler-backlog-timeout). */
  public boolean firstAdd() {
    return adds == 0;
  }
}
