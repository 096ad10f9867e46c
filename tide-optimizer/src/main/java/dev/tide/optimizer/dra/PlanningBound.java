package dev.tide.optimizer.dra;

/**
 * The planning-bound episode: consecutive rounds with idle threads, PENDING tables and no PLANNED task.
 * The warning fires once per episode, in its second round.
 */
public record PlanningBound(int consecutiveRounds, boolean warned) {
  public static final PlanningBound NONE = new PlanningBound(0, false);

  /** Rounds an episode must last before it is reported. */
  public static final int ROUNDS_BEFORE_WARNING = 2;
}
