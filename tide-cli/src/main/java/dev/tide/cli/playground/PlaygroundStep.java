package dev.tide.cli.playground;

import java.time.Duration;

/**
 * One timed action of the playground's script, run by the driver once {@code at} has elapsed since
 * the playground started. Steps due at the same time run in list order. Examples: submit a query,
 * add or drain a compute node, crash one.
 *
 * @param at time since the start of the playground
 * @param label what the step does, printed when it runs
 * @param action the effect, whose return value, when not null, is printed after the label; null for
 *     a step that only marks a moment (one the script set up before, such as a change of a source's rate)
 */
public record PlaygroundStep(Duration at, String label, Action action) {
  /** The effect of a step. Runs on the playground's driver thread. */
  @FunctionalInterface
  public interface Action {
    /** Does the step; returns a short result to print (or null). */
    String run(Playground.Session session) throws Exception;
  }
}
