package dev.tide.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The event log keeps the newest events up to its capacity, numbered so readers can ask for what is new. */
class EventLogTest {
  @Test
  void keepsTheNewestEventsAndNumbersThem() {
    EventLog log = new EventLog(3);
    for (int i = 1; i <= 5; i++) {
      log.record(i * 1000L, "reschedule", "q" + i, "reason " + i);
    }
    assertThat(log.since(0)).extracting(EventLog.Entry::seq).containsExactly(3L, 4L, 5L);
    assertThat(log.since(4)).singleElement().satisfies(e -> {
      assertThat(e.subject()).isEqualTo("q5");
      assertThat(e.atMs()).isEqualTo(5000L);
      assertThat(e.reason()).isEqualTo("reason 5");
    });
    assertThat(log.since(5)).isEmpty();
  }

  @Test
  void refusesACapacityBelowOne() {
    assertThatThrownBy(() -> new EventLog(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity 0");
  }
}
