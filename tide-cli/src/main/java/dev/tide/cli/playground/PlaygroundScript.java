package dev.tide.cli.playground;

import dev.tide.meta.scale.Intent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The timeline of the standard playground. Each entry is a {@link PlaygroundStep}; the driver runs
 * them in time order while it prints progress, so a new act of the demo (scale out, scale in, crash a
 * node, ...) is one more step in {@link #standard}.
 */
public final class PlaygroundScript {
  private PlaygroundScript() {}

  /** The view the standard script rescales while it runs. */
  static final String SCALED = "q5";

  /**
   * Starts every view's query at 0s; at 40% of the duration scales q5 out to twice the cluster's
   * slots (a fixed parallelism), at 70% back in to {@code adaptive} (one actor per slot); the
   * playground then runs until its duration has elapsed.
   */
  public static List<PlaygroundStep> standard(PlaygroundSettings settings, List<PlaygroundView> views) {
    List<PlaygroundStep> steps = new ArrayList<>();
    for (PlaygroundView v : views) {
      steps.add(new PlaygroundStep(Duration.ZERO, "start " + v.query(), session -> session.submit(v)));
    }
    if (views.stream().anyMatch(v -> v.query().equals(SCALED))) {
      int out = scaledOut(settings);
      Intent wide = Intent.fixed(out);
      Intent back = Intent.adaptive();
      steps.add(new PlaygroundStep(fraction(settings.duration(), 40), "scale " + SCALED + " out to " + out,
          session -> session.scale(SCALED, wide)));
      steps.add(new PlaygroundStep(fraction(settings.duration(), 70), "scale " + SCALED + " back in to " + back.render(),
          session -> session.scale(SCALED, back)));
    }
    return steps;
  }

  /** Twice the initial slots, within the default vnode count. */
  static int scaledOut(PlaygroundSettings settings) {
    return (int) Math.min(256, 2L * settings.nodes() * settings.slotsPerNode());
  }

  private static Duration fraction(Duration d, int percent) {
    return Duration.ofMillis(d.toMillis() * percent / 100);
  }
}
