package dev.tide.cli.playground;

import dev.tide.cli.text.Cells;
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
  /** The view the standard script hands to the autoscaler. */
  static final String AUTOSCALED = "q7";
  /**
   * The compaction burst: a bounded job whose view takes every bid, at a rate that spans many
   * barriers (unthrottled, the engine would finish it in two or three, too few L0 files for a
   * sustained backlog). Its writes fill L0 faster than the optimizer group's floor compacts them, so
   * the group scales up; once the job is done the added instances idle and drain after the group's
   * idle timeout (30s).
   */
  static final String BURST_QUERY = "q1";
  static final long BURST_EVENTS = 3_000_000;
  static final long BURST_RATE = 150_000;
  /** Shorter runs end before an idle instance could drain: they skip the burst. */
  static final Duration BURST_MIN_DURATION = Duration.ofSeconds(60);

  /**
   * Starts every view's query at 0s; at 5% hands q7 to the autoscaler (which sizes it from the load
   * its actors measure); at 10% of the duration (runs of a minute or more) a compaction
   * burst; at 30% of the duration scales q5 out to twice the cluster's
   * slots (a fixed parallelism: the compute pool adds nodes for it), at 60% back in to {@code adaptive}
   * (one actor per slot; the added nodes drain 30 s later); the playground then runs until its
   * duration has elapsed.
   */
  public static List<PlaygroundStep> standard(PlaygroundSettings settings, List<PlaygroundView> views) {
    List<PlaygroundStep> steps = new ArrayList<>();
    for (PlaygroundView v : views) {
      steps.add(new PlaygroundStep(Duration.ZERO, "start " + v.query(), session -> session.submit(v)));
    }
    if (views.stream().anyMatch(v -> v.query().equals(AUTOSCALED))) {
      int max = scaledOut(settings);
      steps.add(new PlaygroundStep(fraction(settings.duration(), 5), "hand " + AUTOSCALED + " to the autoscaler (1.." + max
          + " actors per fragment)", session -> session.autoscale(AUTOSCALED, max)));
    }
    if (settings.duration().compareTo(BURST_MIN_DURATION) >= 0) {
      steps.add(new PlaygroundStep(fraction(settings.duration(), 10), "backfill " + BURST_QUERY + " over " + Cells.count(BURST_EVENTS)
          + " events at " + Cells.count(BURST_RATE) + "/s (a burst of compaction work)",
          session -> session.backfill(BURST_QUERY, BURST_EVENTS, BURST_RATE)));
    }
    if (views.stream().anyMatch(v -> v.query().equals(SCALED))) {
      int out = scaledOut(settings);
      Intent wide = Intent.fixed(out);
      Intent back = Intent.adaptive();
      steps.add(new PlaygroundStep(fraction(settings.duration(), 30), "scale " + SCALED + " out to " + out,
          session -> session.scale(SCALED, wide)));
      steps.add(new PlaygroundStep(fraction(settings.duration(), 60), "scale " + SCALED + " back in to " + back.render(),
          session -> session.scale(SCALED, back)));
    }
    return steps;
  }

  /** Twice the initial slots, within the default vnode count. */
  public static int scaledOut(PlaygroundSettings settings) {
    return (int) Math.min(256, 2L * settings.nodes() * settings.slotsPerNode());
  }

  private static Duration fraction(Duration d, int percent) {
    return Duration.ofMillis(d.toMillis() * percent / 100);
  }
}
