package dev.tide.bench.rescale;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OutputTimelineTest {
  static final long MS = 1_000_000L;

  @Test
  void countsOutputsAndFindsTheLongestSilence() {
    OutputTimeline t = new OutputTimeline(0, 10_000 * MS);
    for (long ms = 0; ms < 1000; ms += 10) {
      t.record(ms * MS, 2);
    }
    for (long ms = 1500; ms < 2000; ms += 10) { // nothing from 1000 to 1500 ms
      t.record(ms * MS, 1);
    }
    assertThat(t.outputs(0, 1000 * MS)).isEqualTo(200);
    assertThat(t.outputs(1000 * MS, 2000 * MS)).isEqualTo(50);
    assertThat(t.longestGapMs(0, 2000 * MS)).isEqualTo(500.0);
    assertThat(t.longestGapMs(0, 1000 * MS)).isZero();
  }

  @Test
  void outputsOutsideTheSpanAreDropped() {
    OutputTimeline t = new OutputTimeline(100 * MS, 50 * MS);
    t.record(0, 5);
    t.record(1000 * MS, 5);
    t.record(120 * MS, 1);
    assertThat(t.outputs(0, 2000 * MS)).isEqualTo(1);
  }
}
