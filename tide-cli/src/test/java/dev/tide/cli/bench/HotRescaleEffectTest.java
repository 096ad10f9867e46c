package dev.tide.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.cli.bench.HotRescaleBench.Effect;
import dev.tide.cli.bench.HotRescaleBench.Rescale;
import dev.tide.cli.bench.HotRescaleBench.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a rescale did, read from samples: the gap, before and after, time to 90%. */
class HotRescaleEffectTest {
  static final long MS = 1_000_000;

  /** 1,000 rows/s, every 10 ms, for {@code seconds}; no rows from {@code stopFrom} to {@code stopTo} (ms). */
  static List<Sample> steady(long seconds, long stopFrom, long stopTo) {
    List<Sample> out = new ArrayList<>();
    long rows = 0;
    for (long t = 0; t <= seconds * 1000; t += 10) {
      if (t <= stopFrom || t > stopTo) {
        rows += 10;
      }
      out.add(new Sample(t * MS, rows, rows));
    }
    return out;
  }

  @Test
  void aStopLongerThanTenSecondsAfterTheRequestCountsWholeUntilTheJobRunsAgain() {
    // Requested at 20 s, running again at 45 s (a slow restore): no rows from 20 s to 45 s.
    List<Sample> samples = steady(80, 20_000, 45_000);
    Effect e = HotRescaleBench.effect(samples, new Rescale("1 -> 2", 20_000 * MS, 45_000 * MS, -1), Duration.ofSeconds(20), false);
    assertThat(e.gapMillis()).isBetween(24_900.0, 25_100.0);
    assertThat(e.before()).isBetween(990.0, 1010.0);
    assertThat(e.after()).as("measured after the job ran again, not 20 s after the request").isBetween(990.0, 1010.0);
    assertThat(e.secondsTo90()).isBetween(25.0, 25.1);
  }

  @Test
  void aStopStillLastingAtTheLastSampleCountsUntilThen() {
    List<Sample> samples = steady(30, 25_000, 40_000);
    Effect e = HotRescaleBench.effect(samples, new Rescale("2 -> 1", 25_000 * MS, 25_000 * MS, -1), Duration.ofSeconds(20), false);
    assertThat(e.gapMillis()).isBetween(4_900.0, 5_100.0);
    assertThat(e.secondsTo90()).isNaN();
  }

  @Test
  void aShortStopIsTheGap() {
    List<Sample> samples = steady(60, 20_300, 20_500);
    Effect e = HotRescaleBench.effect(samples, new Rescale("1 -> 2", 20_000 * MS, 20_400 * MS, -1), Duration.ofSeconds(20), true);
    assertThat(e.gapMillis()).isBetween(190.0, 210.0);
    assertThat(e.steadyGapMillis()).as("rows every 10 ms before").isBetween(0.0, 20.0);
    assertThat(e.after()).isBetween(990.0, 1010.0);
  }

  @Test
  void aStopBeforeTheRequestIsTheSteadyGapNotTheRescales() {
    List<Sample> samples = steady(60, 16_000, 16_600);
    Effect e = HotRescaleBench.effect(samples, new Rescale("1 -> 2", 20_000 * MS, 20_000 * MS, -1), Duration.ofSeconds(20), false);
    assertThat(e.steadyGapMillis()).isBetween(590.0, 610.0);
    assertThat(e.gapMillis()).isBetween(0.0, 20.0);
  }

  @Test
  void aScaleDownToLessCapacitySettlesAtTheRateAfter() {
    // 1,000 rows/s until 20 s, then 500 rows/s: 90% of the rate after, not of the rate before.
    List<Sample> samples = new ArrayList<>();
    long rows = 0;
    for (long t = 0; t <= 60_000; t += 10) {
      rows += t <= 20_000 ? 10 : 5;
      samples.add(new Sample(t * MS, rows, rows));
    }
    Effect e = HotRescaleBench.effect(samples, new Rescale("2 -> 1", 20_000 * MS, 20_000 * MS, -1), Duration.ofSeconds(20), false);
    assertThat(e.after()).isBetween(490.0, 510.0);
    assertThat(e.secondsTo90()).isBetween(0.0, 0.1);
  }
}
