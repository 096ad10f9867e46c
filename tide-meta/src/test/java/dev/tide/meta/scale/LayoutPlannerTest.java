package dev.tide.meta.scale;

import static dev.tide.meta.scale.Jobs.AGG;
import static dev.tide.meta.scale.Jobs.MIRROR;
import static dev.tide.meta.scale.Jobs.SINGLE;
import static dev.tide.meta.scale.Jobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Example;

/**
 * Examples of the planners on a hand-built job: a source (8 splits) HASH-feeding an ensemble [1, 2]
 * that feeds a singleton, 256 vnodes. With workers 1 and 2 (2 slots each) and parallelism 3 the
 * initial layout is: fragment 0 actors 1, 2, 3 on workers 1, 2, 1; fragment 1 actors 4, 5, 6 and
 * fragment 2 actors 7, 8, 9 on workers 2, 1, 2 (vnodes 0-84, 85-169, 170-255); fragment 3 actor 10
 * on worker 1.
 */
class LayoutPlannerTest {
  static final JobDefinition JOB = Jobs.job(256, 8);
  static final List<Worker> TWO = Jobs.workers(1, 2, 2, 2);
  static final JobLayout INITIAL = Jobs.initial(JOB, TWO, 3, new Jobs.Ids(1));

  static JobLayout plan(String plan, List<Worker> workers) {
    JobLayout target = LayoutPlanner.forPlan(JOB, INITIAL, ReschedulePlan.parse(plan), workers, new Jobs.Ids(11));
    Jobs.checkInvariants(JOB, target, true);
    return target;
  }

  static List<Long> ids(JobLayout l, int fragment) {
    return l.actors(fragment).stream().map(ActorPlacement::actorId).toList();
  }

  static List<Integer> workers(JobLayout l, int fragment) {
    return l.actors(fragment).stream().map(ActorPlacement::workerId).toList();
  }

  static List<String> vnodes(JobLayout l, int fragment) {
    return l.actors(fragment).stream().map(a -> a.vnodes().toString()).toList();
  }

  @Example
  void initialLayoutIsAsDocumented() {
    Jobs.checkInvariants(JOB, INITIAL, true);
    assertThat(ids(INITIAL, SOURCE)).containsExactly(1L, 2L, 3L);
    assertThat(workers(INITIAL, AGG)).containsExactly(2, 1, 2);
    assertThat(ids(INITIAL, MIRROR)).containsExactly(7L, 8L, 9L);
    assertThat(vnodes(INITIAL, AGG)).containsExactly("0-84", "85-169", "170-255");
  }

  @Example
  void scaleOutAddsMirroredActorsAndMoves64Vnodes() {
    JobLayout t = plan("1:[1:+1]", TWO);
    assertThat(ids(t, AGG)).containsExactly(4L, 5L, 6L, 11L);
    assertThat(ids(t, MIRROR)).containsExactly(7L, 8L, 9L, 12L);
    assertThat(workers(t, MIRROR)).containsExactly(2, 1, 2, 1);
    assertThat(vnodes(t, AGG)).containsExactly("0-63", "85-148", "170-233", "64-84,149-169,234-255");
    assertThat(t.actors(SOURCE)).isEqualTo(INITIAL.actors(SOURCE));
    assertThat(t.actors(SINGLE)).isEqualTo(INITIAL.actors(SINGLE));
    for (int i = 0; i < 3; i++) {
      assertThat(t.actors(AGG).get(i).vnodes().isSubsetOf(INITIAL.actors(AGG).get(i).vnodes())).isTrue();
    }
    LayoutDiff diff = LayoutDiff.of(JOB, INITIAL, t);
    assertThat(diff.movedVnodes()).as("each vnode once per ensemble").isEqualTo(64);
    assertThat(diff.fragments().keySet()).containsExactly(AGG, MIRROR);
    assertThat(diff.fragments().get(AGG).movedVnodes()).isEqualTo(64);
    assertThat(diff.fragments().get(MIRROR).movedVnodes()).isEqualTo(64);
    assertThat(diff.fragments().get(AGG).updated()).allMatch(LayoutDiff.ActorUpdate::shrinksOnly);
  }

  @Example
  void scaleInRemovesTheHighestActorIdOfTheWorker() {
    JobLayout t = plan("1:[2:-1]", TWO);
    assertThat(ids(t, AGG)).containsExactly(4L, 5L);
    assertThat(ids(t, MIRROR)).containsExactly(7L, 8L);
    assertThat(vnodes(t, AGG)).containsExactly("0-84,170-212", "85-169,213-255");
    assertThat(LayoutDiff.of(JOB, INITIAL, t).movedVnodes()).isEqualTo(86);
  }

  @Example
  void migrationLeavesEveryOtherActorUntouched() {
    JobLayout t = plan("1:[2:-1,1:+1]", TWO);
    assertThat(ids(t, AGG)).containsExactly(4L, 5L, 11L);
    assertThat(t.actors(AGG).subList(0, 2)).isEqualTo(INITIAL.actors(AGG).subList(0, 2));
    assertThat(t.actors(MIRROR).subList(0, 2)).isEqualTo(INITIAL.actors(MIRROR).subList(0, 2));
    assertThat(t.actors(AGG).get(2).workerId()).isEqualTo(1);
    assertThat(t.actors(AGG).get(2).vnodes()).isEqualTo(INITIAL.actors(AGG).get(2).vnodes());
    LayoutDiff d = LayoutDiff.of(JOB, INITIAL, t);
    assertThat(d.fragments().get(AGG).updated()).isEmpty();
    assertThat(d.fragments().get(AGG).added()).hasSize(1);
    assertThat(d.fragments().get(AGG).dropped()).extracting(ActorPlacement::actorId).containsExactly(6L);
  }

  @Example
  void sourceSplitsRebalanceLikeVnodes() {
    JobLayout t = plan("0:[2:+1]", TWO);
    assertThat(t.actors(SOURCE)).extracting(ActorPlacement::splits)
        .containsExactly(List.of(0, 3), List.of(1, 4), List.of(2, 5), List.of(6, 7));
    LayoutDiff d = LayoutDiff.of(JOB, INITIAL, t);
    assertThat(d.movedSplits()).isEqualTo(2);
    assertThat(d.movedVnodes()).as("a source's vnodes carry no state").isZero();
    assertThat(d.render()).contains("fragment 0 (source, 8 splits): 3 -> 4 actors, 2 splits move")
        .contains("+ actor 11 on worker 2: splits 6-7")
        .contains("~ actor 1 on worker 1: splits 0,3,6 -> 0,3 (loses 6)");
  }

  @Example
  void aPlanOnADownstreamEnsembleMemberIsRefusedNamingTheEnsembleAndRoot() {
    assertThatThrownBy(() -> plan("2:[1:+1]", TWO)).isInstanceOf(RescheduleException.class)
        .hasMessage("reschedule of fragment 2 refused: fragment 2 is a member of the NO_SHUFFLE ensemble [1, 2], which scales as one,"
            + " driven by its most upstream fragment; target fragment 1 instead");
  }

  @Example
  void aSingletonMigratesButNeverScales() {
    JobLayout t = plan("3:[1:-1,2:+1]", TWO);
    assertThat(ids(t, SINGLE)).containsExactly(11L);
    assertThat(workers(t, SINGLE)).containsExactly(2);
    assertThat(t.actors(SINGLE).get(0).vnodes()).isEqualTo(VnodeBitmap.full(1));
    assertThat(LayoutDiff.of(JOB, INITIAL, t).movedVnodes()).isEqualTo(1);
    assertThatThrownBy(() -> plan("3:[2:+1]", TWO)).isInstanceOf(RescheduleException.class)
        .hasMessage("reschedule of fragment 3 refused: fragment 3 is a singleton and always has exactly 1 actor, but the plan leaves it 2;"
            + " a singleton can only be migrated: -1 on one worker, +1 on another");
    assertThatThrownBy(() -> plan("3:[1:-1]", TWO)).hasMessageContaining("fragment 3 is a singleton").hasMessageContaining("leaves it 0");
  }

  @Example
  void parallelismOutsideItsBoundsIsRefusedWithTheNumbers() {
    assertThatThrownBy(() -> plan("0:[1:+6]", TWO)).isInstanceOf(RescheduleException.class)
        .hasMessage("reschedule of fragment 0 refused: parallelism 9 exceeds the split count 8 of source fragment 0");
    assertThatThrownBy(() -> plan("1:[1:+254]", TWO))
        .hasMessage("reschedule of fragment 1 refused: parallelism 257 exceeds the job's vnode count 256");
    assertThat(plan("1:[1:+253]", TWO).actors(AGG)).hasSize(256);
    assertThatThrownBy(() -> plan("1:[1:-1,2:-2]", TWO))
        .hasMessage("reschedule of fragment 1 refused: parallelism 0 is below 1 (the plan removes all 3 actors)");
  }

  @Example
  void unknownFragmentsAndWorkersAreRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> plan("9:[1:+1]", TWO))
        .hasMessage("reschedule of fragment 9 refused: fragment 9 is not a fragment of job 'q' (id 7); its fragments are [0, 1, 2, 3]");
    assertThatThrownBy(() -> plan("1:[9:+1]", TWO))
        .hasMessage("reschedule of fragment 1 refused: worker 9 is unknown; actors can be added on the schedulable workers [1, 2]");
    assertThatThrownBy(() -> plan("1:[9:-1]", TWO)).hasMessageContaining("worker 9 is unknown; schedulable workers: [1, 2]");
    assertThatThrownBy(() -> plan("1:[1:-2]", TWO)).hasMessage("reschedule of fragment 1 refused: the plan removes 2 actors from worker 1,"
        + " which hosts 1 of fragment 1 (fragment 1 runs on workers {1=1, 2=2})");
    assertThatThrownBy(() -> plan("1:[2:+1]", Jobs.workers(1, 2)))
        .hasMessageContaining("worker 2 is not schedulable (draining or lost); actors can be added on the schedulable workers [1]");
  }

  @Example
  void aRefusedPlanDrawsNoActorId() {
    assertThatThrownBy(() -> LayoutPlanner.forPlan(JOB, INITIAL, ReschedulePlan.parse("0:[1:+1];1:[1:+254]"), TWO, Jobs.noIds()))
        .hasMessageContaining("parallelism 257");
  }

  @Example
  void aPlanMayMoveActorsOffADrainingWorker() {
    JobLayout t = plan("1:[2:-2,1:+2]", Jobs.workers(1, 2));
    assertThat(workers(t, AGG)).containsExactly(1, 1, 1);
    assertThat(t.actors(AGG).get(0).vnodes().toString()).isEqualTo("85-169");
  }

  @Example
  void anIntentThatChangesNothingReturnsTheCurrentLayout() {
    JobLayout same = LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(3), TWO, Jobs.noIds());
    assertThat(same).isEqualTo(INITIAL);
    LayoutDiff d = LayoutDiff.of(JOB, INITIAL, same);
    assertThat(d.isEmpty()).isTrue();
    assertThat(d.movedVnodes()).isZero();
    assertThat(d.render()).isEqualTo("job 'q' (id 7): no change (the target layout equals the current one)\n");

    JobLayout adaptive = Jobs.initial(JOB, TWO, 4, new Jobs.Ids(1));
    assertThat(LayoutPlanner.forIntent(JOB, adaptive, JobIntent.adaptive(), TWO, Jobs.noIds())).isEqualTo(adaptive);
    assertThat(LayoutPlanner.forIntent(JOB, adaptive, JobIntent.of(Intent.ratio(1.0)), TWO, Jobs.noIds())).isEqualTo(adaptive);
  }

  @Example
  void drainingAWorkerMovesItsActorsOffAndKeepsTheOthers() {
    List<Worker> onlyOne = Jobs.workers(1, 2);
    JobLayout t = LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(3), onlyOne, new Jobs.Ids(11));
    Jobs.checkInvariants(JOB, t, true);
    assertThat(Layouts.workersOf(t)).containsExactly(1);
    assertThat(ids(t, SOURCE)).containsExactly(1L, 3L, 11L);
    assertThat(t.actors(SOURCE).subList(0, 2)).isEqualTo(List.of(INITIAL.actors(SOURCE).get(0), INITIAL.actors(SOURCE).get(2)));
    assertThat(ids(t, AGG)).containsExactly(5L, 12L, 13L);
    assertThat(ids(t, MIRROR)).containsExactly(8L, 14L, 15L);
    assertThat(t.actors(AGG).get(0)).isEqualTo(INITIAL.actors(AGG).get(1));
    assertThat(t.actors(SINGLE)).isEqualTo(INITIAL.actors(SINGLE));
    assertThat(LayoutDiff.of(JOB, INITIAL, t).movedVnodes()).isEqualTo(171);
  }

  @Example
  void adaptiveJobsSpreadOntoANewWorker() {
    JobLayout current = Jobs.initial(JOB, TWO, 4, new Jobs.Ids(1));
    List<Worker> three = Jobs.workers(1, 2, 2, 2, 3, 2);
    JobLayout t = LayoutPlanner.forIntent(JOB, current, JobIntent.adaptive(), three, new Jobs.Ids(100));
    Jobs.checkInvariants(JOB, t, true);
    assertThat(workers(t, SOURCE)).containsExactly(1, 2, 1, 2, 3, 3);
    assertThat(workers(t, AGG)).containsExactly(1, 2, 1, 2, 3, 3);
    assertThat(ids(t, SOURCE)).containsExactly(1L, 2L, 3L, 4L, 100L, 101L);
    assertThat(ids(t, AGG).subList(4, 6)).containsExactly(102L, 103L);
    assertThat(ids(t, MIRROR).subList(4, 6)).containsExactly(104L, 105L);
    assertThat(t.actors(SINGLE)).isEqualTo(current.actors(SINGLE));
    for (int i = 0; i < 4; i++) {
      assertThat(t.actors(AGG).get(i).vnodes().isSubsetOf(current.actors(AGG).get(i).vnodes())).isTrue();
    }
    // the split count caps the source: 8 slots -> 8 source actors, vnodes allow 8 too
    List<Worker> four = Jobs.workers(1, 2, 2, 2, 3, 2, 4, 4);
    JobLayout t2 = LayoutPlanner.forIntent(JOB, t, JobIntent.adaptive(), four, new Jobs.Ids(200));
    assertThat(t2.actors(SOURCE)).hasSize(8);
    assertThat(t2.actors(AGG)).hasSize(10);
    assertThat(workers(t2, AGG).subList(6, 10)).containsOnly(4);
  }

  @Example
  void removalPicksTheMostLoadedWorkerThenTheHighestActorId() {
    // worker 1 has 1 slot, worker 2 has 4; fragment 1 runs 2 actors on each
    List<Worker> ws = Jobs.workers(1, 1, 2, 4);
    JobLayout base = Jobs.initial(JOB, Jobs.workers(1, 2, 2, 2), 2, new Jobs.Ids(1));
    JobLayout four = LayoutPlanner.forPlan(JOB, base, ReschedulePlan.parse("1:[1:+1,2:+1]"), ws, new Jobs.Ids(20));
    assertThat(workers(four, AGG)).containsExactly(1, 2, 1, 2);
    assertThat(ids(four, AGG)).containsExactly(3L, 4L, 20L, 21L);
    JobLayout three = LayoutPlanner.forIntent(JOB, four, new JobIntent(Intent.fixed(2), new TreeMap<>(Map.of(AGG, Intent.fixed(3)))), ws,
        new Jobs.Ids(30));
    assertThat(ids(three, AGG)).as("worker 1 is loaded 2/1, worker 2 2/4: its highest id goes").containsExactly(3L, 4L, 21L);
    // equal loads: the higher worker id loses its highest actor id
    JobLayout evenThree = LayoutPlanner.forIntent(JOB, four, new JobIntent(Intent.fixed(2), new TreeMap<>(Map.of(AGG, Intent.fixed(3)))),
        Jobs.workers(1, 2, 2, 2), new Jobs.Ids(30));
    assertThat(ids(evenThree, AGG)).containsExactly(3L, 4L, 20L);
  }

  @Example
  void additionPicksTheLeastLoadedWorkerThenTheLowerId() {
    JobLayout two = Jobs.initial(JOB, TWO, 2, new Jobs.Ids(1));
    assertThat(workers(two, AGG)).containsExactly(1, 2);
    JobLayout t = LayoutPlanner.forIntent(JOB, two, JobIntent.fixed(2).withOverride(AGG, Intent.fixed(5)), Jobs.workers(1, 2, 2, 2, 3, 4),
        new Jobs.Ids(50));
    // loads 1/2, 1/2, 0/4 -> 3 (1/4) -> 3 (2/4, tie with 1/2: lower id 1) -> 1
    assertThat(workers(t, AGG)).containsExactly(1, 2, 3, 3, 1);
  }

  @Example
  void intentOverridesAreValidated() {
    assertThatThrownBy(() -> LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(3).withOverride(MIRROR, Intent.fixed(2)), TWO, Jobs.noIds()))
        .isInstanceOf(RescheduleException.class)
        .hasMessageContaining("scale of fragment 2 refused: fragment 2 is a member of the NO_SHUFFLE ensemble [1, 2]")
        .hasMessageContaining("set the intent of fragment 1 instead");
    assertThatThrownBy(() -> LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(3).withOverride(9, Intent.fixed(2)), TWO, Jobs.noIds()))
        .hasMessageContaining("fragment 9 is not a fragment of job 'q' (id 7); its fragments are [0, 1, 2, 3]");
    assertThatThrownBy(() -> LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(3).withOverride(SINGLE, Intent.fixed(2)), TWO, Jobs.noIds()))
        .hasMessageContaining("scale of fragment 3 refused: fragment 3 is a singleton and always has exactly 1 actor, but the intent asks for 2");
    assertThatThrownBy(() -> LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(3).withOverride(AGG, Intent.fixed(300)), TWO, Jobs.noIds()))
        .hasMessage("scale of fragment 1 refused: parallelism 300 exceeds the job's vnode count 256");
    // the job's intent is a policy, clamped to each ensemble's cap
    JobLayout clamped = LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.fixed(300), TWO, new Jobs.Ids(11));
    assertThat(clamped.actors(SOURCE)).hasSize(8);
    assertThat(clamped.actors(AGG)).hasSize(256);
    assertThat(clamped.actors(SINGLE)).hasSize(1);
    assertThatThrownBy(() -> LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.adaptive(), List.of(), Jobs.noIds()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no schedulable compute node");
  }

  @Example
  void aSourceWhoseActorsHoldEveryVnodeKeepsThatConvention() {
    JobLayout full = new JobLayout(new TreeMap<>(Map.of(
        SOURCE, INITIAL.actors(SOURCE).stream().map(a -> new ActorPlacement(a.actorId(), a.workerId(), VnodeBitmap.full(256), a.splits()))
            .toList(),
        AGG, INITIAL.actors(AGG), MIRROR, INITIAL.actors(MIRROR), SINGLE, INITIAL.actors(SINGLE))));
    JobLayout t = LayoutPlanner.forPlan(JOB, full, ReschedulePlan.parse("0:[2:+1]"), TWO, new Jobs.Ids(11));
    assertThat(t.actors(SOURCE)).allMatch(a -> a.vnodes().equals(VnodeBitmap.full(256)));
    assertThat(t.actors(SOURCE)).hasSize(4);
  }

  @Example
  void inconsistentLayoutsAreRefused() {
    JobLayout broken = new JobLayout(new TreeMap<>(Map.of(SOURCE, INITIAL.actors(SOURCE), AGG, INITIAL.actors(AGG),
        MIRROR, INITIAL.actors(MIRROR).subList(0, 2), SINGLE, INITIAL.actors(SINGLE))));
    assertThatThrownBy(() -> LayoutPlanner.forIntent(JOB, broken, JobIntent.fixed(3), TWO, Jobs.noIds()))
        .hasMessageContaining("fragment 2 has 2 actors but the root 1 of its ensemble [1, 2] has 3");
  }

  @Example
  void renderShowsCountsActorsAndRanges() {
    String r = LayoutDiff.of(JOB, INITIAL, plan("1:[1:+1]", TWO)).render();
    assertThat(r).startsWith("job 'q' (id 7): 2 fragments change, 2 actors added, 0 dropped, 64 vnodes and 0 splits move\n")
        .contains("fragment 1 (hash, 256 vnodes): 3 -> 4 actors, 64 vnodes move\n")
        .contains("  + actor 11 on worker 1: vnodes 64-84,149-169,234-255\n")
        .contains("  ~ actor 4 on worker 2: vnodes 0-84 -> 0-63 (loses 64-84)\n")
        .contains("fragment 2 (hash, 256 vnodes): 3 -> 4 actors");
    String in = LayoutDiff.of(JOB, INITIAL, plan("1:[2:-1]", TWO)).render();
    assertThat(in).contains("  - actor 6 on worker 2: hands over vnodes 170-255\n")
        .contains("  ~ actor 4 on worker 2: vnodes 0-84 -> 0-84,170-212 (gains 170-212)\n");
    String single = LayoutDiff.of(JOB, INITIAL, plan("3:[1:-1,2:+1]", TWO)).render();
    assertThat(single).contains("fragment 3 (singleton): 1 -> 1 actors, 1 vnode moves\n");
  }

  @Example
  void sameInputsGiveEqualLayouts() {
    for (String p : List.of("1:[1:+1]", "0:[1:-1,2:+2]", "3:[1:-1,2:+1];1:[2:-1]")) {
      assertThat(plan(p, TWO)).isEqualTo(plan(p, TWO));
    }
    List<Worker> three = Jobs.workers(3, 1, 1, 2, 2, 2);
    assertThat(LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.adaptive(), three, new Jobs.Ids(11)))
        .isEqualTo(LayoutPlanner.forIntent(JOB, INITIAL, JobIntent.adaptive(), List.of(three.get(2), three.get(0), three.get(1)), new Jobs.Ids(11)));
  }
}
