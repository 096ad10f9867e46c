package dev.tide.optimizer.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.Config;
import dev.tide.common.time.ManualClock;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.group.TableStatus;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Status cycle, task transitions, quota at poll, planning parallelism, expiry and reclaim, on a manual clock. */
class OptimizingQueueTest {
  static final String G = "default";
  final ManualClock clock = new ManualClock(1_000_000);

  static WorkloadOptions options(int l0Files, long taskInputBytes) {
    return WorkloadOptions.from(Config.defaults().with(WorkloadOptions.L0_FILES, l0Files)
        .with(WorkloadOptions.TASK_INPUT_BYTES, taskInputBytes));
  }

  static OptimizingQueue queue(WorkloadOptions options, Map<String, String> groupProps) {
    GroupConfig cfg = GroupConfig.parse(groupProps, "in-process");
    return new OptimizingQueue(options, g -> cfg, "t");
  }

  long now() {
    return clock.nowMillis();
  }

  /** Polls thread 0 and plans whatever the poll started, like the service does. */
  Optional<TaskView> pollAndPlan(OptimizingQueue q, String inst, int thread, StoreVersion v) {
    OptimizingQueue.PollResult r = q.poll(inst, thread, now());
    for (long table : r.planningStarted()) {
      q.planned(CompactionPlanner.plan(v, table, q.options()), now());
    }
    return r.task();
  }

  static List<SstInfo> out(long id, long table) {
    return List.of(Versions.sst(id, table, 0, 1, 10, 1));
  }

  @Test
  void statusCycleFromIdleThroughCommitBackToIdle() {
    OptimizingQueue q = queue(options(4, 2000), Map.of());
    StoreVersion v = Versions.withL0(3, 1001);
    assertThat(q.observe(v, now())).isEmpty();
    assertThat(q.status(1001)).contains(TableStatus.IDLE);

    v = Versions.withL0(4, 1001);
    assertThat(q.observe(v, now())).containsExactly(1001L);
    assertThat(q.status(1001)).contains(TableStatus.PENDING);

    String inst = q.register(G, 4, Optional.empty(), now()); // quota 0.5 of 4 threads: 2 at once
    OptimizingQueue.PollResult first = q.poll(inst, 0, now());
    assertThat(first.task()).isEmpty();
    assertThat(first.planningStarted()).containsExactly(1001L);
    assertThat(q.status(1001)).contains(TableStatus.PLANNING);

    CompactionPlan plan = CompactionPlanner.plan(v, 1001, q.options());
    assertThat(plan.inputs()).hasSize(4);
    assertThat(plan.tasks()).hasSize(2); // 4000 input bytes at 2000 per task
    q.planned(plan, now());
    assertThat(q.status(1001)).contains(TableStatus.OPTIMIZING);
    assertThat(q.tables(G)).containsExactly(new TableLoad("1001", TableStatus.OPTIMIZING, 0.5, 2, 0));

    TaskView a = q.poll(inst, 0, now()).task().orElseThrow();
    TaskView b = q.poll(inst, 1, now()).task().orElseThrow();
    assertThat(q.tables(G).get(0).occupiedThreads()).isEqualTo(2);
    assertThat(q.instances(G)).containsExactly(InstanceView.manual(inst, 4, 2).withLastTaskAt(now()));
    q.ack(inst, a.taskId(), a.attempt(), now());
    q.ack(inst, b.taskId(), b.attempt(), now());
    assertThat(q.complete(inst, a.taskId(), a.attempt(), out(100, 1001), "", now()).commit()).isEmpty();
    OptimizingQueue.Completion last = q.complete(inst, b.taskId(), b.attempt(), out(101, 1001), "", now());
    assertThat(q.status(1001)).contains(TableStatus.COMMITTING);
    OptimizingQueue.CommitWork work = last.commit().orElseThrow();
    assertThat(work.inputs()).extracting(SstInfo::getId).containsExactlyElementsOf(plan.inputs().stream().map(SstInfo::getId).toList());
    assertThat(work.outputs()).extracting(SstInfo::getId).containsExactly(100L, 101L);

    q.committed(1001, now());
    assertThat(q.status(1001)).contains(TableStatus.IDLE);
    assertThat(q.tasks(1001)).isEmpty();
    assertThat(q.stats().compactionsCommitted()).isEqualTo(1);
    assertThat(q.stats().tasksSucceeded()).isEqualTo(2);
  }

  @Test
  void failedPlanReturnsToPendingAndEmptyPlanToIdle() {
    OptimizingQueue q = queue(options(2, 1 << 20), Map.of());
    StoreVersion v = Versions.withL0(2, 7);
    q.observe(v, now());
    String inst = q.register(G, 1, Optional.empty(), now());
    assertThat(q.poll(inst, 0, now()).planningStarted()).containsExactly(7L);
    q.planFailed(7, now());
    assertThat(q.status(7)).contains(TableStatus.PENDING);
    assertThat(q.poll(inst, 0, now()).planningStarted()).containsExactly(7L);
    q.planned(new CompactionPlan(7, List.of(), List.of()), now());
    assertThat(q.status(7)).contains(TableStatus.IDLE);
    assertThatThrownBy(() -> q.planned(new CompactionPlan(7, List.of(), List.of()), now()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("table 7").hasMessageContaining("not PLANNING");
  }

  @Test
  void planningIsSerializedByMaxPlanningParallelism() {
    OptimizingQueue q = queue(options(1, 1 << 20), Map.of());
    StoreVersion v = Versions.withL0(1, 1, 2, 3);
    clock.advance(Duration.ofSeconds(1));
    q.observe(v, now());
    String inst = q.register(G, 4, Optional.empty(), now());
    assertThat(q.poll(inst, 0, now()).planningStarted()).containsExactly(1L);
    assertThat(q.poll(inst, 1, now()).planningStarted()).isEmpty(); // one table plans at a time (default 1)
    q.planned(CompactionPlanner.plan(v, 1, q.options()), now());
    assertThat(q.poll(inst, 1, now()).task()).isPresent(); // table 1's task, no planning needed
    OptimizingQueue.PollResult r = q.poll(inst, 2, now()); // table 1 is at its quota (ceil(0.5*4)=2)? it has no PLANNED task left
    assertThat(r.task()).isEmpty();
    assertThat(r.planningStarted()).containsExactly(2L);

    OptimizingQueue q2 = queue(options(1, 1 << 20), Map.of("optimizer.max-planning-parallelism", "2"));
    q2.observe(v, now());
    String i2 = q2.register(G, 4, Optional.empty(), now());
    assertThat(q2.poll(i2, 0, now()).planningStarted()).containsExactly(1L, 2L);
    assertThat(q2.poll(i2, 1, now()).planningStarted()).isEmpty();
    assertThat(q2.tables(G)).extracting(TableLoad::status)
        .containsExactly(TableStatus.PLANNING, TableStatus.PLANNING, TableStatus.PENDING);
  }

  /** Options without packing: any polling thread may take a task. */
  static WorkloadOptions unpacked(int l0Files, long taskInputBytes) {
    return WorkloadOptions.from(Config.defaults().with(WorkloadOptions.L0_FILES, l0Files)
        .with(WorkloadOptions.TASK_INPUT_BYTES, taskInputBytes).with(WorkloadOptions.PACKING_WINDOW, Duration.ZERO));
  }

  /** A queue whose table 5 is planned into 8 tasks (no quota limit), and two one-thread instances registered in order. */
  record TwoInstances(OptimizingQueue q, String first, String second) {}

  TwoInstances twoInstancesOverEightTasks(WorkloadOptions options) {
    OptimizingQueue q = queue(options, Map.of());
    q.configureTable(5, new TableSettings(G, 8)); // up to 8 threads at once: the quota never binds here
    StoreVersion v = Versions.withL0(2, 5);
    q.observe(v, now());
    String first = q.register(G, 1, Optional.empty(), now());
    String second = q.register(G, 1, Optional.empty(), now());
    pollAndPlan(q, first, 0, v);
    assertThat(q.tables(G).get(0).plannedTasks()).isEqualTo(8);
    return new TwoInstances(q, first, second);
  }

  @Test
  void packingKeepsNewTasksForTheEarliestInstanceForThePackingWindow() {
    TwoInstances t = twoInstancesOverEightTasks(options(1, 100));
    assertThat(t.q().poll(t.first(), 0, now()).task()).as("the earliest instance: at once").isPresent();
    assertThat(t.q().poll(t.second(), 0, now()).task()).as("a later one: not before the task waited 1s").isEmpty();
    clock.advance(Duration.ofMillis(999));
    assertThat(t.q().poll(t.second(), 0, now()).task()).isEmpty();
    clock.advance(Duration.ofMillis(1));
    assertThat(t.q().poll(t.second(), 0, now()).task()).isPresent();
  }

  @Test
  void packingIgnoresDrainingInstancesAndCanBeTurnedOff() {
    TwoInstances t = twoInstancesOverEightTasks(options(1, 100));
    t.q().drain(G, t.first()); // gets no task: never a reason to hold the next one back
    assertThat(t.q().poll(t.second(), 0, now()).task()).isPresent();

    TwoInstances off = twoInstancesOverEightTasks(unpacked(1, 100));
    assertThat(off.q().poll(off.second(), 0, now()).task()).isPresent();
  }

  @Test
  void proportionalQuotaLimitsThreadsOfATableAtPoll() {
    OptimizingQueue q = queue(unpacked(1, 100), Map.of()); // 100 bytes per task: many tasks
    StoreVersion v = Versions.withL0(2, 5);
    q.observe(v, now());
    String inst = q.register(G, 4, Optional.empty(), now());
    pollAndPlan(q, inst, 0, v);
    assertThat(q.tables(G).get(0).plannedTasks()).isEqualTo(8);
    // quota 0.5 of 4 threads: limit ceil(2.0) = 2
    assertThat(q.poll(inst, 0, now()).task()).isPresent();
    assertThat(q.poll(inst, 1, now()).task()).isPresent();
    assertThat(q.poll(inst, 2, now()).task()).isEmpty();
    // a second instance raises the group's threads to 8: limit 4
    String other = q.register(G, 4, Optional.empty(), now());
    assertThat(q.poll(other, 0, now()).task()).isPresent();
    assertThat(q.poll(other, 1, now()).task()).isPresent();
    assertThat(q.poll(other, 2, now()).task()).isEmpty();
    assertThat(q.tables(G).get(0).occupiedThreads()).isEqualTo(4);
  }

  @Test
  void absoluteQuotaIsAFixedThreadLimit() {
    OptimizingQueue q = queue(options(1, 100), Map.of());
    q.configureTable(5, new TableSettings(G, 3));
    StoreVersion v = Versions.withL0(2, 5);
    q.observe(v, now());
    String inst = q.register(G, 8, Optional.empty(), now());
    pollAndPlan(q, inst, 0, v);
    for (int t = 0; t < 3; t++) {
      assertThat(q.poll(inst, t, now()).task()).isPresent();
    }
    assertThat(q.poll(inst, 3, now()).task()).isEmpty();
    assertThat(q.tables(G)).containsExactly(new TableLoad("5", TableStatus.OPTIMIZING, 3, 5, 3));
  }

  @Test
  void tablesOfAnotherGroupAreNotServed() {
    OptimizingQueue q = queue(options(1, 1 << 20), Map.of());
    q.configureTable(9, new TableSettings("big", 0.5));
    StoreVersion v = Versions.withL0(1, 9);
    q.observe(v, now());
    String inst = q.register(G, 1, Optional.empty(), now());
    assertThat(q.poll(inst, 0, now()).planningStarted()).isEmpty();
    assertThat(q.tables(G)).isEmpty();
    assertThat(q.tables("big")).extracting(TableLoad::status).containsExactly(TableStatus.PENDING);
  }

  @Test
  void expiredInstanceLosesItsTasksAndMustRegisterAgain() {
    OptimizingQueue q = queue(options(1, 1 << 20), Map.of("optimizer.heart-beat-timeout", "60s"));
    StoreVersion v = Versions.withL0(1, 5);
    q.observe(v, now());
    String inst = q.register(G, 1, Optional.empty(), now());
    pollAndPlan(q, inst, 0, v);
    TaskView t = q.poll(inst, 0, now()).task().orElseThrow();
    q.ack(inst, t.taskId(), t.attempt(), now());
    assertThat(q.nextExpiryMs()).isEqualTo(now() + 60_000);

    clock.advance(Duration.ofSeconds(59));
    q.heartbeat(inst, now());
    clock.advance(Duration.ofSeconds(59));
    assertThat(q.expire(now()).expiredInstances()).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    OptimizingQueue.Expiry e = q.expire(now());
    assertThat(e.expiredInstances()).containsExactly(inst);
    assertThat(e.reclaimedTasks()).isEqualTo(1);
    assertThat(q.tasks(5)).extracting(TaskView::state).containsExactly(TaskState.PLANNED);
    assertThat(q.instances(G)).isEmpty();
    assertThatThrownBy(() -> q.poll(inst, 0, now())).isInstanceOf(UnknownInstanceException.class);
    assertThatThrownBy(() -> q.complete(inst, t.taskId(), t.attempt(), out(50, 5), "", now()))
        .isInstanceOf(UnknownInstanceException.class);

    String again = q.register(G, 1, Optional.empty(), now());
    TaskView retry = q.poll(again, 0, now()).task().orElseThrow();
    assertThat(retry.taskId()).isEqualTo(t.taskId());
    assertThat(retry.attempt()).isEqualTo(2);
  }

  @Test
  void unacknowledgedTaskIsReclaimedAfterAckTimeoutAndItsLateResultRefused() {
    OptimizingQueue q = queue(options(1, 1 << 20), Map.of("optimizer.task-ack-timeout", "30s"));
    StoreVersion v = Versions.withL0(1, 5);
    q.observe(v, now());
    String inst = q.register(G, 2, Optional.empty(), now());
    pollAndPlan(q, inst, 0, v);
    TaskView t = q.poll(inst, 0, now()).task().orElseThrow();
    clock.advance(Duration.ofMillis(29_999));
    q.heartbeat(inst, now());
    assertThat(q.expire(now()).reclaimedTasks()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(q.expire(now()).reclaimedTasks()).isEqualTo(1);
    assertThat(q.tasks(5)).extracting(TaskView::state).containsExactly(TaskState.PLANNED);
    assertThatThrownBy(() -> q.ack(inst, t.taskId(), t.attempt(), now())).isInstanceOf(TaskNotHeldException.class);

    TaskView again = q.poll(inst, 1, now()).task().orElseThrow();
    q.ack(inst, again.taskId(), again.attempt(), now());
    assertThat(q.expire(now() + 59_000).reclaimedTasks()).isZero(); // acked: only instance expiry reclaims it
    assertThatThrownBy(() -> q.complete(inst, t.taskId(), t.attempt(), out(60, 5), "", now()))
        .isInstanceOf(TaskNotHeldException.class).hasMessageContaining("drop the result");
    q.complete(inst, again.taskId(), again.attempt(), out(61, 5), "", now());
    assertThat(q.status(5)).contains(TableStatus.COMMITTING);
    assertThat(q.stats().tasksSucceeded()).isEqualTo(1);
    assertThat(q.stats().tasksReclaimed()).isEqualTo(1);
  }

  @Test
  void failedTaskIsRetriedThenTheCompactionIsAbandoned() {
    OptimizingQueue q = queue(WorkloadOptions.from(Config.defaults().with(WorkloadOptions.L0_FILES, 1)
        .with(WorkloadOptions.TASK_INPUT_BYTES, 1000L).with(WorkloadOptions.MAX_ATTEMPTS, 2)), Map.of());
    StoreVersion v = Versions.withL0(2, 5);
    q.observe(v, now());
    String inst = q.register(G, 2, Optional.empty(), now());
    pollAndPlan(q, inst, 0, v);
    TaskView ok = q.poll(inst, 0, now()).task().orElseThrow();
    q.ack(inst, ok.taskId(), ok.attempt(), now());
    q.complete(inst, ok.taskId(), ok.attempt(), out(70, 5), "", now());
    for (int attempt = 1; attempt <= 2; attempt++) {
      TaskView bad = q.poll(inst, 1, now()).task().orElseThrow();
      assertThat(bad.attempt()).isEqualTo(attempt);
      q.ack(inst, bad.taskId(), bad.attempt(), now());
      OptimizingQueue.Completion c = q.complete(inst, bad.taskId(), bad.attempt(), List.of(), "disk on fire", now());
      if (attempt == 1) {
        assertThat(q.tasks(5)).extracting(TaskView::state).containsExactly(TaskState.SUCCESS, TaskState.PLANNED);
      } else {
        assertThat(c.discarded()).extracting(SstInfo::getId).containsExactly(70L);
        assertThat(q.status(5)).contains(TableStatus.PENDING);
      }
    }
    assertThat(q.stats().compactionsAbandoned()).isEqualTo(1);
    assertThat(q.stats().tasksFailed()).isEqualTo(2);
  }

  @Test
  void drainingInstanceGetsNoNewTaskAndUnregisterReclaims() {
    OptimizingQueue q = queue(options(1, 100), Map.of());
    StoreVersion v = Versions.withL0(1, 5);
    q.observe(v, now());
    String inst = q.register(G, 2, Optional.of("res-1"), now());
    pollAndPlan(q, inst, 0, v);
    TaskView t = q.poll(inst, 0, now()).task().orElseThrow();
    q.drain(G, inst);
    assertThat(q.draining(inst)).isTrue();
    assertThat(q.poll(inst, 1, now()).task()).isEmpty();
    assertThat(q.instances(G)).containsExactly(InstanceView.launched(inst, 2, 1, "res-1").withLastTaskAt(now()));
    assertThat(q.unregister(inst)).isEqualTo(1);
    assertThat(q.tasks(5).get(0).state()).isEqualTo(TaskState.PLANNED);
    assertThat(t.attempt()).isEqualTo(1);
  }

  @Test
  void badRegistrationsAndPollsAreRefusedWithTheRule() {
    OptimizingQueue q = queue(options(1, 100), Map.of());
    assertThatThrownBy(() -> q.register(" ", 1, Optional.empty(), now())).hasMessageContaining("non-blank group");
    assertThatThrownBy(() -> q.register(G, 0, Optional.empty(), now())).hasMessageContaining("threads 0 must be between 1 and 1024");
    String inst = q.register(G, 2, Optional.empty(), now());
    assertThatThrownBy(() -> q.poll(inst, 2, now())).hasMessageContaining("thread 2 is not in 0..1");
    assertThat(q.instances(G)).hasSize(1);
  }

  @Test
  void taskTransitionTable() {
    assertThat(TaskState.PLANNED.canMoveTo(TaskState.SCHEDULED)).isTrue();
    assertThat(TaskState.PLANNED.canMoveTo(TaskState.ACKED)).isFalse();
    assertThat(TaskState.SCHEDULED.canMoveTo(TaskState.PLANNED)).isTrue();
    assertThat(TaskState.SCHEDULED.canMoveTo(TaskState.SUCCESS)).isFalse();
    assertThat(TaskState.ACKED.canMoveTo(TaskState.SUCCESS)).isTrue();
    assertThat(TaskState.ACKED.canMoveTo(TaskState.FAILED)).isTrue();
    assertThat(TaskState.FAILED.canMoveTo(TaskState.PLANNED)).isTrue();
    assertThat(TaskState.SUCCESS.canMoveTo(TaskState.PLANNED)).isFalse();
    assertThat(TaskState.SUCCESS.canMoveTo(TaskState.CANCELED)).isTrue();
    assertThat(TaskState.CANCELED.canMoveTo(TaskState.CANCELED)).isFalse();
    List<TaskState> occupying = new ArrayList<>();
    for (TaskState s : TaskState.values()) {
      if (s.occupiesThread()) {
        occupying.add(s);
      }
    }
    assertThat(occupying).containsExactly(TaskState.SCHEDULED, TaskState.ACKED);
  }

  @Test
  void tableSettingsAreValidated() {
    assertThat(TableSettings.parse(Map.of("self-optimizing.quota", "4", "self-optimizing.group", "big")))
        .isEqualTo(new TableSettings("big", 4));
    assertThatThrownBy(() -> TableSettings.parse(Map.of("self-optimizing.quota", "0")))
        .hasMessageContaining("self-optimizing.quota 0.0 must be a positive finite number");
    assertThatThrownBy(() -> TableSettings.parse(Map.of("self-optimizing.quota", "lots"))).hasMessageContaining("'lots' is not a number");
    assertThatThrownBy(() -> TableSettings.parse(Map.of("self-optimizing.qouta", "1"))).hasMessageContaining("unknown table property");
  }
}
