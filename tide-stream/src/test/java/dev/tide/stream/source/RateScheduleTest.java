package dev.tide.stream.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RateScheduleTest {
  @Test
  void eventsDueFollowTheSteps() {
    RateSchedule s = RateSchedule.of(1000, "10s:4000,20s:500");
    assertThat(s.due(0)).isZero();
    assertThat(s.due(5_000)).isEqualTo(5_000);
    assertThat(s.due(10_000)).isEqualTo(10_000);
    assertThat(s.due(15_000)).isEqualTo(30_000);
    assertThat(s.due(30_000)).isEqualTo(10_000 + 40_000 + 5_000);
    assertThat(s.rateAt(9_999)).isEqualTo(1000);
    assertThat(s.rateAt(10_000)).isEqualTo(4000);
    assertThat(s.rateAt(60_000)).isEqualTo(500);
  }

  @Test
  void noStepsIsAConstantRate() {
    assertThat(RateSchedule.of(2000, "").due(1500)).isEqualTo(3000);
  }

  @Test
  void malformedStepsAreRefusedNamingTheStep() {
    assertThatThrownBy(() -> RateSchedule.of(1, "30s")).hasMessageContaining("step '30s' must be OFFSET:RATE");
    assertThatThrownBy(() -> RateSchedule.of(1, "30s:x")).hasMessageContaining("step '30s:x'");
    assertThatThrownBy(() -> RateSchedule.of(1, "30s:10,20s:5")).hasMessageContaining("offset after the previous step's");
    assertThatThrownBy(() -> RateSchedule.of(1, "30s:0")).hasMessageContaining("positive rate");
  }
}
