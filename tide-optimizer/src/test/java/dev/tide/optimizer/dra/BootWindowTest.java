package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.MIN;
import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static dev.tide.optimizer.dra.Fixtures.snap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.dra.Fixtures.Keeper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Requested-not-registered capacity (spec 11). */
class BootWindowTest {

  @Test
  void aRequestCountsUntilItsBootDeadlineThenIsPruned() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "2", "dynamic-allocation.executor-parallelism", "2"));
    ScaleDecision first = k.round(snap().build(), T0);
    assertThat(first.instancesRequested()).isEqualTo(1);
    assertThat(first.state().pendingRequests()).singleElement()
        .satisfies(p -> assertThat(p.bootDeadlineMs()).isEqualTo(T0 + 3 * MIN));
    assertThat(k.add(snap().build(), T0 + 30 * S)).isZero();
    assertThat(k.last.nextEvaluationMs()).isEqualTo(T0 + 3 * MIN);
    assertThat(k.last.nextEvaluationReason()).contains("boot deadline");
    assertThat(k.add(snap().build(), T0 + 3 * MIN - 1)).isZero();
    ScaleDecision expired = k.round(snap().build(), T0 + 3 * MIN);
    assertThat(expired.summary()).contains("did not register within dra.boot-deadline 3min");
    assertThat(expired.instancesRequested()).as("the floor is requested again").isEqualTo(1);
  }

  @Test
  void bootDeadlineIsConfigurable() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1", "dra.boot-deadline", "45s"));
    k.round(snap().build(), T0);
    assertThat(k.add(snap().build(), T0 + 44_999)).isZero();
    assertThat(k.add(snap().build(), T0 + 45 * S)).isEqualTo(1);
  }

  @Test
  void aRegisteredRequestLeavesTheBootWindowAndCountsAsRegistered() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    String rid = k.round(snap().build(), T0).scaleUp().orElseThrow().resourceIds().get(0);
    ScaleDecision d = k.round(snap().launchedAs("opt-1", 1, 0, rid).build(), T0 + 20 * S);
    assertThat(d.state().pendingRequests()).isEmpty();
    assertThat(d.instancesRequested()).isZero();
    assertThat(d.state().lastBusyMs()).containsEntry("opt-1", T0 + 20 * S);
  }

  @Test
  void aSynchronouslyFailedRequestIsDroppedAndRetriedOnTheNextRound() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(2, 1).planned(3);
    k.round(demand.build(), T0);
    ScaleDecision add = k.round(demand.build(), T0 + 60 * S);
    String rid = add.scaleUp().orElseThrow().resourceIds().get(0);
    assertThat(add.nextEvaluationMs()).isEqualTo(T0 + 90 * S);

    ScaleDecision retry = k.round(demand.outcome(rid, RequestOutcome.FAILED).build(), T0 + 90 * S);
    assertThat(retry.summary()).contains("request " + rid + " failed synchronously");
    assertThat(retry.state().pendingRequests()).extracting(PendingRequest::resourceId).doesNotContain(rid);
    assertThat(retry.instancesRequested()).isEqualTo(2); // need 3 again, ramp 2
  }

  @Test
  void aFailedFloorRequestIsRetriedAfterOneInterval() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    ScaleDecision d = k.round(snap().build(), T0);
    assertThat(d.nextEvaluationMs()).isEqualTo(T0 + 30 * S);
    assertThat(d.nextEvaluationReason()).isEqualTo("request outcome check");
    String rid = d.scaleUp().orElseThrow().resourceIds().get(0);
    assertThat(k.add(snap().outcome(rid, RequestOutcome.FAILED).build(), T0 + 30 * S)).isEqualTo(1);
  }

  @Test
  void aLaunchedRequestWhoseRecordFailedToPersistKeepsItsEntry() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    String rid = k.round(snap().build(), T0).scaleUp().orElseThrow().resourceIds().get(0);
    ScaleDecision d = k.round(snap().outcome(rid, RequestOutcome.LAUNCHED_UNPERSISTED).build(), T0 + 30 * S);
    assertThat(d.instancesRequested()).isZero();
    assertThat(d.state().pendingRequests()).extracting(PendingRequest::resourceId).containsExactly(rid);
  }

  @Test
  void anExpiredRequestIsReplacedAsSoonAsSpacingAllowsBecauseTheTimerWasHeld() {
    Keeper k = new Keeper(cfg());
    Fixtures.Snap demand = snap().busyInstances(1, 1).planned(1);
    k.round(demand.build(), T0);
    assertThat(k.add(demand.build(), T0 + 60 * S)).isEqualTo(1);
    // Covered by the booting request: held, not reset.
    ScaleDecision held = k.round(demand.build(), T0 + 120 * S);
    assertThat(held.state().backlog()).isPresent();
    assertThat(held.summary()).contains("demand covered by 1 requested thread still booting");
    assertThat(k.add(demand.build(), T0 + 240 * S)).as("boot deadline of the request at T0+60 s").isEqualTo(1);
  }

  @Test
  void retainBootWindowKeepsOnlyRequests() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "2"));
    k.round(snap().launched("a", 1, 0).build(), T0);
    KeeperState kept = k.state.retainBootWindow();
    assertThat(kept.pendingRequests()).hasSize(1);
    assertThat(kept.lastBusyMs()).isEmpty();
    assertThat(kept.draining()).isEmpty();
    assertThat(kept.backlog()).isEmpty();
    assertThat(List.of(kept.scaleUpRounds())).containsExactly(1L);
  }
}
