package dev.tide.meta.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.meta.RescheduleResult;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.Jobs;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.meta.schedule.Layouts;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.stream.Mutation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The core stepped by hand: each case is an interaction of two control paths that went wrong
 * before the core existed, or that the simulation found. Calls succeed at once unless held.
 */
class MetaCoreTest {
  /** A driver in a test: runs effects at once, reports every barrier collected, holds builds on request. */
  static final class Harness {
    final SimMetaStore store = new SimMetaStore();
    MetaCore core;
    long now = 1000;
    long requests;
    final Map<Long, Effect.Reply> replies = new HashMap<>();
    final List<Mutation> injected = new ArrayList<>();
    final List<dev.tide.proto.stream.BuildActorsRequest> builds = new ArrayList<>();
    final Set<Integer> down = new HashSet<>();
    boolean holdBuilds;
    final List<Event.CallDone> held = new ArrayList<>();
    /** Every barrier injected, once (each worker gets a copy), in order. */
    final List<dev.tide.proto.stream.Barrier> barriers = new ArrayList<>();
    /** Collections (the uploads) are held; so are the reports of passing a settling barrier with {@code holdPasses}. */
    boolean holdCollects;
    boolean holdPasses;
    final List<Event> heldCollects = new ArrayList<>();

    Harness() {
      restart();
    }

    void restart() {
      core = new MetaCore(ControlPlaneSimulation.CONFIG, store.load(), now, now);
      run(core.start(now));
    }

    void run(Step step) {
      ArrayDeque<Event> next = new ArrayDeque<>();
      for (Effect e : step.effects()) {
        if (e instanceof Effect.Persist p) {
          StoreWrites.apply(store, p.write());
        } else if (e instanceof Effect.Reply r) {
          replies.put(r.requestId(), r);
        } else if (e instanceof Effect.Call c) {
          if (down.contains(c.workerId())) {
            next.add(new Event.CallDone(c.token(), c.workerId(), "UNAVAILABLE: down", true));
            continue;
          }
          if (c.rpc() instanceof Effect.Rpc.Build build) {
            builds.add(build.request());
          }
          if (c.rpc() instanceof Effect.Rpc.Build && holdBuilds) {
            held.add(Event.CallDone.ok(c.token(), c.workerId()));
            continue;
          }
          if (c.rpc() instanceof Effect.Rpc.Inject i) {
            dev.tide.proto.stream.Barrier b = i.request().getBarrier();
            if (barriers.isEmpty() || barriers.get(barriers.size() - 1).getCurrEpoch() != b.getCurrEpoch()) {
              barriers.add(b);
            }
            if (b.hasMutation() && !injected.contains(b.getMutation())) {
              injected.add(b.getMutation());
            }
            Event.Collected collected = new Event.Collected(c.workerId(), i.request().getRunId(), b.getPrevEpoch(), List.of());
            if (i.request().getReportPassed()) {
              Event.Passed passed = new Event.Passed(c.workerId(), i.request().getRunId(), b.getPrevEpoch());
              (holdPasses ? heldCollects : next).add(passed);
            }
            if (holdCollects) {
              heldCollects.add(collected);
            } else {
              next.add(collected);
            }
          }
          next.add(Event.CallDone.ok(c.token(), c.workerId()));
        }
      }
      while (!next.isEmpty()) {
        run(core.handle(now, next.poll()));
      }
    }

    long send(Command c) {
      long id = ++requests;
      run(core.handle(now, new Event.Request(id, c)));
      return id;
    }

    Object ask(Command c) {
      Effect.Reply r = replies.get(send(c));
      assertThat(r).as("reply to %s", c).isNotNull();
      if (r.error() != null) {
        throw r.error();
      }
      return r.value();
    }

    void releaseBuilds() {
      holdBuilds = false;
      List<Event.CallDone> done = new ArrayList<>(held);
      held.clear();
      done.forEach(d -> run(core.handle(now, d)));
    }

    void releaseCollects() {
      holdCollects = false;
      holdPasses = false;
      List<Event> done = new ArrayList<>(heldCollects);
      heldCollects.clear();
      done.forEach(d -> run(core.handle(now, d)));
    }

    /** Advances time by {@code ms}, polling at every deadline, with heartbeats from every worker not down. */
    void advance(long ms, int... workers) {
      long end = now + ms;
      while (now < end) {
        now = Math.min(end, now + 100);
        for (int w : workers) {
          if (!down.contains(w)) {
            send(new Command.Heartbeat(w, 0, 0, now));
          }
        }
        run(core.poll(now));
      }
    }

    int register(String address, int slots) {
      return ((Command.Registered) ask(new Command.RegisterWorker(address, slots))).workerId();
    }

    JobDefinition create(String name) {
      Command.JobIds ids = (Command.JobIds) ask(new Command.AllocateJobIds());
      JobDefinition def = Jobs.job(16, 4).toBuilder().setJobId(ids.jobId()).setName(name).build();
      ask(new Command.CreateJob(def));
      return def;
    }
  }

  @Test
  void aDrainedWorkerIsToldToLeaveAlsoByARestartedMeta() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 2);
    h.create("q");
    h.advance(500, a, b);
    h.ask(new Command.DrainWorker(b));
    h.advance(3000, a, b);
    assertThat(Layouts.workersOf(h.core.snapshot().jobs().get("q").layout())).containsExactly(a);
    assertThat(h.ask(new Command.Heartbeat(b, 0, 0, h.now))).isEqualTo(Command.Verdict.LEAVE);
    h.restart();
    assertThat(h.ask(new Command.Heartbeat(b, 0, 0, h.now))).isEqualTo(Command.Verdict.LEAVE);
    assertThat(h.core.snapshot().workers()).extracting(w -> w.id()).containsExactly(a);
    // Once it stopped heartbeating, it is forgotten; it never comes back by itself.
    h.advance(5000, a);
    assertThat(h.store.load().workers()).containsOnlyKeys(a);
  }

  @Test
  void anUpdateFollowsItsSettlingBarrierOnceEveryWorkerPassedIt() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 2);
    h.create("q");
    h.advance(500, a, b);
    h.holdCollects = true;
    h.holdPasses = true;
    h.advance(300, a, b); // a periodic barrier may go out; none is collected
    int before = h.barriers.size();
    long reschedule = h.send(new Command.Reschedule("q", new Command.Change.ScaleJob(Intent.fixed(6)), false));
    h.advance(3000, a, b);
    assertThat(h.barriers.subList(before, h.barriers.size())).as("one settling barrier, at once, and then nothing")
        .hasSize(1).allMatch(x -> !x.hasMutation());
    assertThat(h.replies).doesNotContainKey(reschedule);
    // Only the passes arrive (the uploads are still running): the Update goes out.
    List<Event> passes = new ArrayList<>(h.heldCollects.stream().filter(e -> e instanceof Event.Passed).toList());
    assertThat(passes).hasSize(2);
    h.heldCollects.removeAll(passes);
    h.run(h.core.handle(h.now, passes.get(0)));
    h.run(h.core.poll(h.now));
    assertThat(h.barriers.subList(before, h.barriers.size())).as("one worker has not passed it yet").hasSize(1);
    h.run(h.core.handle(h.now, passes.get(1)));
    h.run(h.core.poll(h.now));
    assertThat(h.barriers.subList(before, h.barriers.size())).hasSize(2);
    assertThat(h.barriers.get(h.barriers.size() - 1).getMutation().hasUpdate()).as("the Update, once both passed").isTrue();
    h.releaseCollects();
    h.advance(2000, a, b);
    assertThat(((RescheduleResult) h.replies.get(reschedule).value()).applied()).isTrue();
    assertThat(h.barriers.size()).as("periodic barriers again").isGreaterThan(before + 2);
  }

  @Test
  void aPauseRequestedWhileAReschedulesBuildsPausesTheActorsItAdds() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 2);
    h.create("q");
    h.advance(500, a, b);
    h.holdBuilds = true;
    long reschedule = h.send(new Command.Reschedule("q", new Command.Change.ScaleJob(Intent.fixed(6)), false));
    h.ask(new Command.SetPaused("q", true)); // queued before the Update, whose builds are still running
    h.releaseBuilds();
    h.advance(2000, a, b);
    assertThat(((RescheduleResult) h.replies.get(reschedule).value()).applied()).isTrue();
    int pause = -1;
    int update = -1;
    for (int i = 0; i < h.injected.size(); i++) {
      if (h.injected.get(i).hasPause()) {
        pause = i;
      } else if (h.injected.get(i).hasUpdate()) {
        update = i;
      }
    }
    assertThat(pause).isBetween(0, update - 1);
    assertThat(h.injected.get(update).getUpdate().getPaused()).as("the Update tells its new sources they are paused").isTrue();
  }

  @Test
  void aPlanThatChangesACountBecomesTheFragmentsOverrideAndReconciliationKeepsIt() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 2);
    h.create("q");
    h.advance(500, a, b);
    int before = h.core.snapshot().jobs().get("q").layout().actors(Jobs.AGG).size();
    long id = h.send(new Command.Reschedule("q", new Command.Change.ApplyPlan(ReschedulePlan.parse(Jobs.AGG + ":[" + b + ":+1]")), false));
    h.advance(1000, a, b); // answered once its barrier committed
    RescheduleResult r = (RescheduleResult) h.replies.get(id).value();
    assertThat(r.intent().intentFor(Jobs.AGG)).isEqualTo(Intent.fixed(before + 1));
    int c = h.register("c", 2); // a membership change: reconciliation runs, and keeps the operator's count
    h.advance(5000, a, b, c);
    assertThat(h.core.snapshot().jobs().get("q").layout().actors(Jobs.AGG)).hasSize(before + 1);
    assertThat(h.store.load().jobs().values().iterator().next().intent().intentFor(Jobs.AGG)).isEqualTo(Intent.fixed(before + 1));
  }

  @Test
  void aNodeRegisteringAgainAtItsAddressReplacesItsOldRegistration() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 2);
    h.create("q");
    h.advance(500, a, b);
    int b2 = h.register("b", 2); // the process at "b" restarted before its old registration timed out
    h.advance(1000, a, b2);
    assertThat(h.core.recoveryReason()).isNull();
    assertThat(h.core.snapshot().workers()).extracting(w -> w.id()).containsExactly(a, b2);
    assertThat(Layouts.workersOf(h.core.snapshot().jobs().get("q").layout())).doesNotContain(b);
  }

  @Test
  void recoveryOffALostWorkerKeepsNoShuffleEnsemblesOnOneWorker() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 1);
    int c = h.register("c", 3);
    JobDefinition def = h.create("q");
    h.advance(500, a, b, c);
    h.send(new Command.Reschedule("q", new Command.Change.SetIntent(JobIntent.fixed(6)), false));
    h.advance(1000, a, b, c);
    h.down.add(a);
    h.advance(5000, b, c);
    assertThat(h.core.recoveryReason()).isNull();
    Jobs.checkInvariants(def, h.core.snapshot().jobs().get("q").layout(), false); // mirrors stay with their roots
  }

  @Test
  void aJobRecoveredWhilePausedStaysPaused() {
    Harness h = new Harness();
    int a = h.register("a", 2);
    int b = h.register("b", 2);
    h.create("q");
    h.advance(500, a, b);
    h.ask(new Command.SetPaused("q", true));
    h.advance(500, a, b);
    h.builds.clear();
    h.down.add(b);
    h.advance(5000, a);
    assertThat(h.builds).isNotEmpty().allMatch(dev.tide.proto.stream.BuildActorsRequest::getPaused);
    assertThat(h.core.snapshot().jobs().get("q").paused()).isTrue();
    assertThat(h.store.load().jobs().values().iterator().next().paused()).isTrue();
  }
}
