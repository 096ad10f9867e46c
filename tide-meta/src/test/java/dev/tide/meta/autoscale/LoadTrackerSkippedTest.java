package dev.tide.meta.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.proto.stream.ActorLoad;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A source fragment's skipped-record total: the newest committed epoch in which every actor knew its count. */
class LoadTrackerSkippedTest {
  private static ActorLoad load(long actor, int fragment, long skipped) {
    return ActorLoad.newBuilder().setActorId(actor).setJobId(1).setFragmentId(fragment).setElapsedNs(1_000_000).setSkipped(skipped).build();
  }

  @Test
  void newestEpochEveryActorKnewSumsTheirCounts() {
    LoadTracker t = new LoadTracker(60_000);
    t.record(1_000, 5, List.of(load(1, 0, 2), load(2, 0, 1), load(3, 1, -1)));
    t.record(1_100, 6, List.of(load(1, 0, -1), load(2, 0, 1))); // actor 1 reading its new splits' state
    t.record(1_200, 7, List.of(load(1, 0, 4), load(2, 0, 1)));
    assertThat(t.skipped(1, 0, 5)).isEqualTo(3);
    assertThat(t.skipped(1, 0, 6)).isEqualTo(3);
    assertThat(t.skipped(1, 0, 7)).isEqualTo(5);
    assertThat(t.skipped(1, 0, 4)).isEqualTo(-1);
    assertThat(t.skipped(1, 1, 7)).as("a fragment whose actors are not sources").isEqualTo(-1);
    assertThat(t.skipped(2, 0, 7)).isEqualTo(-1);
  }
}
