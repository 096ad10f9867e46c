package dev.tide.optimizer.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.Config;
import dev.tide.common.store.StoreKeys;
import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompactionPlannerTest {
  static WorkloadOptions opts(long taskBytes, int maxTasks) {
    return WorkloadOptions.from(Config.defaults().with(WorkloadOptions.TASK_INPUT_BYTES, taskBytes)
        .with(WorkloadOptions.MAX_TASKS_PER_TABLE, maxTasks));
  }

  @Test
  void tasksCoverTheTableInAscendingDisjointVnodeRanges() {
    StoreVersion v = Versions.withL0(3, 4, 5, 6);
    CompactionPlan p = CompactionPlanner.plan(v, 5, opts(1000, 8));
    assertThat(p.inputs()).hasSize(3).allMatch(s -> s.getTableIds(0) == 5);
    // L0 inputs newest first, as the version lists them
    assertThat(p.inputs()).extracting(SstInfo::getMaxEpoch).containsExactly(3L, 2L, 1L);
    assertThat(p.tasks()).hasSize(3);
    assertThat(p.tasks().get(0).fromKey()).isEqualTo(CompactionPlanner.tablePrefix(5));
    assertThat(p.tasks().get(2).toKey()).isEqualTo(CompactionPlanner.tablePrefix(6));
    for (int i = 1; i < p.tasks().size(); i++) {
      assertThat(p.tasks().get(i).fromKey()).isEqualTo(p.tasks().get(i - 1).toKey());
      assertThat(StoreKeys.compare(p.tasks().get(i).fromKey(), p.tasks().get(i - 1).fromKey())).isPositive();
    }
    assertThat(p.tasks()).allMatch(TaskSpec::dropTombstones);
    assertThat(CompactionPlanner.plan(v, 5, opts(1000, 2)).tasks()).hasSize(2);
    assertThat(CompactionPlanner.plan(v, 99, opts(1000, 2)).isEmpty()).isTrue();
  }

  @Test
  void l1OfTheTableJoinsTheInputsAfterL0() {
    StoreVersion v = Versions.withL0(2, 5);
    v = VersionDeltas.apply(v, VersionDeltas.compaction(v, List.of(1L, 2L), 1, List.of(Versions.sst(10, 5, 0, 255, 500, 2))));
    v = VersionDeltas.apply(v, VersionDeltas.checkpoint(v, 3, List.of(Versions.sst(11, 5, 0, 255, 500, 3))));
    CompactionPlan p = CompactionPlanner.plan(v, 5, opts(1 << 20, 8));
    assertThat(p.inputs()).extracting(SstInfo::getId).containsExactly(11L, 10L);
    assertThat(p.tasks()).hasSize(1);
  }

  @Test
  void anSstSharedWithAnotherTableCannotBePlanned() {
    SstInfo shared = Versions.sst(1, 5, 0, 9, 100, 1).toBuilder().addTableIds(6).build();
    StoreVersion v = VersionDeltas.apply(VersionDeltas.empty(), VersionDeltas.checkpoint(VersionDeltas.empty(), 1, List.of(shared)));
    assertThatThrownBy(() -> CompactionPlanner.plan(v, 5, opts(100, 8)))
        .hasMessageContaining("sst 1 also holds tables [5, 6]");
  }

  @Test
  void triggerCountsFilesAndBytesPerTable() {
    StoreVersion v = Versions.withL0(3, 4, 5);
    assertThat(CompactionPlanner.l0Stats(v)).containsEntry(4L, new CompactionPlanner.L0Stats(3, 3000));
    WorkloadOptions byFiles = WorkloadOptions.from(Config.defaults().with(WorkloadOptions.L0_FILES, 3));
    WorkloadOptions byBytes = WorkloadOptions.from(Config.defaults().with(WorkloadOptions.L0_BYTES, 3000L));
    assertThat(CompactionPlanner.needsOptimizing(new CompactionPlanner.L0Stats(3, 3000), byFiles)).isTrue();
    assertThat(CompactionPlanner.needsOptimizing(new CompactionPlanner.L0Stats(2, 3000), byFiles)).isFalse();
    assertThat(CompactionPlanner.needsOptimizing(new CompactionPlanner.L0Stats(2, 3000), byBytes)).isTrue();
  }

  @Test
  void obsoleteSstsWaitForReadersAndGrace() {
    ObsoleteSsts o = new ObsoleteSsts(1000);
    o.dropped(List.of(Versions.sst(1, 5, 0, 1, 1, 1)), 7);
    assertThat(o.takeDeletable(6, 0)).isEmpty();
    assertThat(o.takeDeletable(7, 10)).isEmpty(); // readers moved past at t=10, grace until 1010
    assertThat(o.takeDeletable(7, 1009)).isEmpty();
    assertThat(o.takeDeletable(7, 1010)).extracting(SstInfo::getId).containsExactly(1L);
    assertThat(o.size()).isZero();
  }
}
