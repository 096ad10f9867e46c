package dev.tide.stream.plan;

/** A plan that cannot run: the message names the node, the offending column, type or key, and the fix. */
public final class PlanException extends IllegalArgumentException {
  public PlanException(String message) {
    super(message);
  }
}
