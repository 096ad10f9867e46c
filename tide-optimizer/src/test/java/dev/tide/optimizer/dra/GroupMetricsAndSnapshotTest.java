package dev.tide.optimizer.dra;

import static dev.tide.optimizer.dra.Fixtures.S;
import static dev.tide.optimizer.dra.Fixtures.T0;
import static dev.tide.optimizer.dra.Fixtures.cfg;
import static dev.tide.optimizer.dra.Fixtures.snap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.optimizer.dra.Fixtures.Keeper;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.group.TableStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Snapshot assembly from tables (spec 10) and the group metrics (spec 20). */
class GroupMetricsAndSnapshotTest {

  @Test
  void snapshotFromTablesIsQuotaAwareAndDrivesDemand() {
    List<TableLoad> tables = List.of(
        new TableLoad("a", TableStatus.OPTIMIZING, 0.5, 5, 1),
        new TableLoad("b", TableStatus.OPTIMIZING, 3, 10, 2),
        new TableLoad("c", TableStatus.PENDING, 0.5, 0, 0),
        new TableLoad("d", TableStatus.COMMITTING, 0.5, 0, 0),
        new TableLoad("e", TableStatus.IDLE, 0.5, 0, 0));
    List<InstanceView> instances = List.of(InstanceView.launched("i1", 2, 2, "r1"), InstanceView.launched("i2", 2, 1, "r2"));
    GroupSnapshot s = GroupSnapshot.fromTables("g", tables, instances, Map.of(), Optional.empty());
    assertThat(s.busyThreads()).isEqualTo(3);
    assertThat(s.plannedTasks()).isEqualTo(15);
    assertThat(s.serviceablePlannedTasks()).isEqualTo(6);
    assertThat(s.tables()).isEqualTo(new TableCounts(1, 1, 0, 2, 1));

    Keeper k = new Keeper(cfg());
    k.round(s, T0);
    ScaleDecision d = k.round(s, T0 + 60 * S);
    // need = busy 3 + serviceable 6 − effective 4 = 5 (not 3 + 15 − 4): the absolute table's fixed limit caps it.
    assertThat(d.summary()).contains("need 5 threads").contains("(busy 3 + serviceable 6 − effective 4;");
  }

  @Test
  void snapshotRefusesInconsistentCounts() {
    assertThatThrownBy(() -> new GroupSnapshot("g", 0, 1, 2, TableCounts.NONE, List.of(), Map.of(), Optional.empty()))
        .hasMessageContaining("0 ≤ serviceable ≤ planned");
    assertThatThrownBy(() -> new GroupSnapshot("g", 0, 0, 0, TableCounts.NONE,
        List.of(InstanceView.manual("x", 1, 0), InstanceView.manual("x", 1, 0)), Map.of(), Optional.empty()))
        .hasMessageContaining("instance x listed twice");
  }

  @Test
  void metricsReflectSnapshotAndState() {
    Keeper k = new Keeper(cfg("dynamic-allocation.min-parallelism", "1"));
    Fixtures.Snap base = snap().launched("a", 1, 0).launched("b", 1, 0);
    k.round(base.build(), T0);
    k.round(base.build(), T0 + 5 * 60 * S); // drains a
    GroupSnapshot withDemand = snap().launched("a", 1, 1).launched("b", 1, 1).busy(2).planned(4).pendingTables(2).build();
    k.round(withDemand, T0 + 5 * 60 * S + 10 * S);
    GroupMetrics m = GroupMetrics.of(withDemand, k.state, false, T0 + 5 * 60 * S + 25 * S);
    assertThat(m.group()).isEqualTo("g");
    assertThat(m.drainingInstances()).isEqualTo(1);
    assertThat(m.effectiveThreads()).isEqualTo(1);
    assertThat(m.idleInstances()).isZero();
    assertThat(m.backlogDurationMs()).isEqualTo(15 * S);
    assertThat(m.scaleUpRounds()).isZero();
    assertThat(m.scaleDownStarts()).isEqualTo(1);
    assertThat(m.pendingTasks()).isEqualTo(4);
    assertThat(m.executingTasks()).isEqualTo(2);
    assertThat(m.pendingTables()).isEqualTo(2);
    assertThat(m.instances()).isEqualTo(2);
    assertThat(m.threads()).isEqualTo(2);
    assertThat(m.configInvalid()).isZero();
    assertThat(GroupMetrics.NAMES).hasSize(16);

    GroupConfig.Loaded bad = GroupConfig.loadStored(Map.of("dynamic-allocation.enabled", "true"), "local", List.of());
    assertThat(GroupMetrics.of(withDemand, KeeperState.initial(), bad.invalid(), T0).configInvalid()).isEqualTo(1);
  }
}
