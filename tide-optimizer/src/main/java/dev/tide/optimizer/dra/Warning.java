package dev.tide.optimizer.dra;

/** An operator-facing warning of a round, to log (edge-triggered: it is emitted once per episode). */
public record Warning(Code code, String message) {
  public enum Code {
    /** Planning, not thread capacity, is the bottleneck: raise {@code optimizer.max-planning-parallelism}. */
    PLANNING_BOUND
  }
}
