package dev.tide.cli.playground;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The timeline of the standard playground. Each entry is a {@link PlaygroundStep}; the driver runs
 * them in time order while it prints progress, so a new act of the demo (scale out at 20s, scale in
 * at 40s, crash a node, ...) is one more step in {@link #standard}.
 */
public final class PlaygroundScript {
  private PlaygroundScript() {}

  /** Starts every view's query at 0s; the playground then runs until its duration has elapsed. */
  public static List<PlaygroundStep> standard(PlaygroundSettings settings, List<PlaygroundView> views) {
    List<PlaygroundStep> steps = new ArrayList<>();
    for (PlaygroundView v : views) {
      steps.add(new PlaygroundStep(Duration.ZERO, "start " + v.query(), session -> session.submit(v)));
    }
    return steps;
  }
}
