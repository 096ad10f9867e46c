package dev.tide.cli.playground;

import dev.tide.cli.text.Cells;
import dev.tide.common.config.Durations;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The timeline of the standard playground. Each entry is a {@link PlaygroundStep}; the driver runs
 * them in time order while it prints progress, so a new act of the demo (scale out, scale in, crash a
 * node, ...) is one more step in {@link #standard}.
 */
public final class PlaygroundScript {
  private PlaygroundScript() {}

  /** The view whose load steps up and back down, sized by the autoscaler. */
  static final String STEPPED = "q5";
  /** The view the standard script hands to the autoscaler without changing its load. */
  static final String AUTOSCALED = "q7";
  /** q5's rate during the step, as a multiple of the playground's rate per query. */
  static final int STEP_FACTOR = 100;
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
   * Starts every view's query at 0s and hands q5 to the autoscaler (1 to twice the cluster's slots
   * actors per fragment); at 5% hands q7 to it as well; at 10% of the duration (runs of a minute or
   * more) a compaction burst. q5's source steps its rate up to {@link #STEP_FACTOR} times the
   * playground's rate at 20% of the duration and back at 32% ({@link #sourceOptions}): the
   * autoscaler scales q5 out from the load and backlog its actors measure, the compute pool adds
   * nodes when q5 wants more actors than there are slots, and after the step down the autoscaler
   * scales q5 back in (after its scale-down delay) and the pool drains the nodes it added (after its
   * idle timeout). Every decision prints with its reason; the playground runs until its duration has
   * elapsed.
   */
  public static List<PlaygroundStep> standard(PlaygroundSettings settings, List<PlaygroundView> views) {
    List<PlaygroundStep> steps = new ArrayList<>();
    int max = scaledOut(settings);
    for (PlaygroundView v : views) {
      steps.add(new PlaygroundStep(Duration.ZERO, "start " + v.query(), session -> session.submit(v, sourceOptions(settings, v))));
      if (v.query().equals(STEPPED)) {
        steps.add(new PlaygroundStep(Duration.ZERO, "hand " + STEPPED + " to the autoscaler (1.." + max + " actors per fragment)",
            session -> session.autoscale(STEPPED, max)));
        steps.add(new PlaygroundStep(stepUp(settings), STEPPED + "'s load steps up to " + Cells.count(stepRate(settings)) + " events/s",
            null));
        steps.add(new PlaygroundStep(stepDown(settings), STEPPED + "'s load steps back down to " + Cells.count(settings.ratePerQuery())
            + " events/s", null));
      }
    }
    if (views.stream().anyMatch(v -> v.query().equals(AUTOSCALED))) {
      steps.add(new PlaygroundStep(fraction(settings.duration(), 5), "hand " + AUTOSCALED + " to the autoscaler (1.." + max
          + " actors per fragment)", session -> session.autoscale(AUTOSCALED, max)));
    }
    if (settings.duration().compareTo(BURST_MIN_DURATION) >= 0) {
      steps.add(new PlaygroundStep(fraction(settings.duration(), 10), "backfill " + BURST_QUERY + " over " + Cells.count(BURST_EVENTS)
          + " events at " + Cells.count(BURST_RATE) + "/s (a burst of compaction work)",
          session -> session.backfill(BURST_QUERY, BURST_EVENTS, BURST_RATE)));
    }
    steps.sort(Comparator.comparing(PlaygroundStep::at));
    return steps;
  }

  /**
   * The source options a view's query adds to the playground's: q5's rate steps (offsets from the
   * job's creation, which is the playground's start).
   */
  static Map<String, String> sourceOptions(PlaygroundSettings settings, PlaygroundView view) {
    if (!view.query().equals(STEPPED)) {
      return Map.of();
    }
    return Map.of(NexmarkSourceOptions.RATE_STEPS.key(), Durations.format(stepUp(settings)) + ":" + stepRate(settings) + ","
        + Durations.format(stepDown(settings)) + ":" + settings.ratePerQuery());
  }

  static long stepRate(PlaygroundSettings settings) {
    return settings.ratePerQuery() * STEP_FACTOR;
  }

  private static Duration stepUp(PlaygroundSettings settings) {
    return fraction(settings.duration(), 20);
  }

  private static Duration stepDown(PlaygroundSettings settings) {
    return fraction(settings.duration(), 32);
  }

  /** Twice the initial slots, within the default vnode count. */
  public static int scaledOut(PlaygroundSettings settings) {
    return (int) Math.min(256, 2L * settings.nodes() * settings.slotsPerNode());
  }

  private static Duration fraction(Duration d, int percent) {
    return Duration.ofMillis(d.toMillis() * percent / 100);
  }
}
