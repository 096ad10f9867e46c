package dev.tide.meta.autoscale;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.List;

/**
 * Options of the job autoscaler ({@code autoscaler.*}), declared once. A job is scaled only when
 * the autoscaler is enabled here and the job's intent hands it over ({@code tide ctl autoscale JOB --enable}).
 */
public final class AutoscalerOptions {
  public static final ConfigOption<Boolean> ENABLED = ConfigOption.boolOption("autoscaler.enabled", true,
      "Whether meta runs the autoscaler at all; each job still opts in through its intent.");
  public static final ConfigOption<Double> TARGET_UTILIZATION = ConfigOption.doubleOption("autoscaler.target-utilization", 0.7,
      "Busy fraction each actor should run at after a decision; a job's intent may set its own.")
      .withRule(v -> v > 0 && v <= 1, "above 0 and at most 1");
  public static final ConfigOption<Double> UTILIZATION_BAND = ConfigOption.doubleOption("autoscaler.utilization-band", 0.2,
      "A fragment is rescaled only when its utilization at the target rate leaves target ± band.")
      .withRule(v -> v > 0 && v < 1, "above 0 and below 1");
  public static final ConfigOption<Duration> STABILIZATION = ConfigOption.durationOption("autoscaler.stabilization", Duration.ofSeconds(30),
      "After a job's layout changed (any reschedule or recovery), metrics of this long are ignored before the window starts.")
      .withRule(d -> !d.isNegative() && d.toMillis() <= 3_600_000, "between 0 and 1h");
  public static final ConfigOption<Duration> METRIC_WINDOW = ConfigOption.durationOption("autoscaler.metric-window", Duration.ofSeconds(20),
      "Load is averaged over this window of fresh epochs; a decision waits until the window is full.")
      .withRule(d -> d.toMillis() >= 1000 && d.toMillis() <= 3_600_000, "between 1s and 1h");
  public static final ConfigOption<Duration> SCALE_DOWN_DELAY = ConfigOption.durationOption("autoscaler.scale-down-delay", Duration.ofMinutes(5),
      "A fragment is scaled down only after it wanted fewer actors for this long, to the most it wanted meanwhile.")
      .withRule(d -> !d.isNegative() && d.toMillis() <= 86_400_000, "between 0 and 24h");
  public static final ConfigOption<Duration> CATCH_UP = ConfigOption.durationOption("autoscaler.catch-up", Duration.ofSeconds(30),
      "A source's backlog is planned to drain within this time, on top of its input rate.")
      .withRule(d -> d.toMillis() >= 1000 && d.toMillis() <= 86_400_000, "between 1s and 24h");
  public static final ConfigOption<Double> EFFECTIVENESS = ConfigOption.doubleOption("autoscaler.effectiveness-threshold", 0.1,
      "A scale-up that realized less than this fraction of its expected gain in rows/s is ineffective (a hot key, an outside"
          + " bottleneck): the fragment is not scaled up again until its autoscaling is re-enabled.")
      .withRule(v -> v >= 0 && v < 1, "at least 0 and below 1");
  public static final ConfigOption<Duration> INTERVAL = ConfigOption.durationOption("autoscaler.interval", Duration.ofSeconds(5),
      "How often the autoscaler decides.")
      .withRule(d -> d.toMillis() >= 100 && d.toMillis() <= 600_000, "between 100ms and 10min");

  public static final List<ConfigOption<?>> ALL = List.of(ENABLED, TARGET_UTILIZATION, UTILIZATION_BAND, STABILIZATION, METRIC_WINDOW,
      SCALE_DOWN_DELAY, CATCH_UP, EFFECTIVENESS, INTERVAL);

  /** The options as the decision core uses them. */
  public record Settings(double targetUtilization, double band, long stabilizationMs, long metricWindowMs, long scaleDownDelayMs,
      long catchUpMs, double effectivenessThreshold) {

    public static Settings of(Config c) {
      return new Settings(c.get(TARGET_UTILIZATION), c.get(UTILIZATION_BAND), c.get(STABILIZATION).toMillis(), c.get(METRIC_WINDOW).toMillis(),
          c.get(SCALE_DOWN_DELAY).toMillis(), c.get(CATCH_UP).toMillis(), c.get(EFFECTIVENESS));
    }
  }

  private AutoscalerOptions() {}
}
