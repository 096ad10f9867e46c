package dev.tide.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tide.bench.Progress.Timeline;
import org.junit.jupiter.api.Test;

class TimelineTest {
  private static final long S = 1_000_000_000L;

  // 2 s at 1M rows/s, then 2 s at 500k rows/s; with 6,000 events in all, 500 rows per event.
  private final Timeline t = new Timeline(new long[] {0, S, 2 * S, 3 * S, 4 * S}, new long[] {0, 1_000_000, 2_000_000, 2_500_000, 3_000_000});

  @Test
  void interpolatesTheTimeARowCountIsReached() {
    assertThat(t.nanosAt(500_000)).isCloseTo(0.5 * S, within(1.0));
    assertThat(t.nanosAt(2_250_000)).isCloseTo(2.5 * S, within(1.0));
    assertThat(t.nanosAt(5_000_000)).isEqualTo(4.0 * S);
  }

  @Test
  void steadyRateCountsEventsNotRows() {
    // 6,000 events in all: rows 600k..1.8M take 1.2 s, i.e. 0.2..0.6 of the input = 2,400 events.
    assertThat(t.eventsPerSecond(6_000, 0.2, 0.6)).isCloseTo(2_000, within(1e-6));
  }

  @Test
  void windowsShowASlowdown() {
    assertThat(t.windows(6_000, 2_000)).containsExactly(new double[] {2_000, 2_000, 1_000}, within(1e-6));
    assertThat(t.windows(5_000, 2_000)).hasSize(3); // the last window is shorter
  }
}
