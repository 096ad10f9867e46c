package dev.tide.meta.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Random walks of scale requests, explicit plans, worker joins and drains over the hand-built job;
 * after every step the layout satisfies every invariant, and replaying a walk gives the same layouts.
 */
class LayoutPlannerPropertyTest {
  private static final int[] ROOTS = {Jobs.SOURCE, Jobs.AGG, Jobs.SINGLE};

  /** Runs one walk and returns every layout it went through. */
  static List<JobLayout> walk(long seed, int steps) {
    Random rnd = new Random(seed);
    JobDefinition job = Jobs.job(new int[] {1, 4, 16, 256}[rnd.nextInt(4)], new int[] {1, 3, 8, 64}[rnd.nextInt(4)]);
    TreeMap<Integer, Worker> schedulable = new TreeMap<>();
    int nextWorker = 1;
    for (int i = 1 + rnd.nextInt(3); i > 0; i--) {
      schedulable.put(nextWorker, new Worker(nextWorker, "w", 1 + rnd.nextInt(4)));
      nextWorker++;
    }
    Jobs.Ids ids = new Jobs.Ids(1);
    JobLayout layout = Layouts.initial(job, new ArrayList<>(schedulable.values()), 1 + rnd.nextInt(6), ids);
    JobIntent intent = JobIntent.adaptive();
    List<JobLayout> seen = new ArrayList<>(List.of(layout));
    for (int step = 0; step < steps; step++) {
      int op = rnd.nextInt(6);
      boolean replan = true;
      if (op == 0) {
        intent = randomIntent(rnd, job.getVnodeCount());
      } else if (op == 1) {
        schedulable.put(nextWorker, new Worker(nextWorker, "w", 1 + rnd.nextInt(4)));
        nextWorker++;
      } else if (op == 2 && schedulable.size() > 1) {
        List<Integer> keys = new ArrayList<>(schedulable.keySet());
        schedulable.remove(keys.get(rnd.nextInt(keys.size())));
      } else {
        replan = false;
        layout = randomPlan(job, layout, schedulable, ids, rnd);
      }
      if (replan) {
        List<Worker> ws = new ArrayList<>(schedulable.values());
        JobLayout target = LayoutPlanner.forIntent(job, layout, intent, ws, ids);
        checkIntentTarget(job, layout, target, intent, schedulable);
        layout = target;
      }
      Jobs.checkInvariants(job, layout, true);
      seen.add(layout);
    }
    return seen;
  }

  static JobIntent randomIntent(Random rnd, int aggCap) {
    Intent i = switch (rnd.nextInt(4)) {
      case 0 -> Intent.fixed(1 + rnd.nextInt(12));
      case 1 -> Intent.adaptive();
      case 2 -> Intent.bounded(1 + rnd.nextInt(12));
      default -> Intent.ratio((1 + rnd.nextInt(10)) / 10.0);
    };
    JobIntent ji = JobIntent.of(i);
    return rnd.nextInt(3) == 0 ? ji.withOverride(Jobs.AGG, Intent.fixed(1 + rnd.nextInt(Math.min(3, aggCap)))) : ji;
  }

  /** The target of an intent: per-ensemble counts as documented, nothing on unschedulable workers, idempotent. */
  static void checkIntentTarget(JobDefinition job, JobLayout before, JobLayout target, JobIntent intent, TreeMap<Integer, Worker> schedulable) {
    int slots = schedulable.values().stream().mapToInt(Worker::slots).sum();
    for (Ensemble e : Ensemble.of(job)) {
      int cap = e.members().stream().mapToInt(f -> Layouts.maxParallelism(job, job.getFragmentsList().stream()
          .filter(x -> x.getFragmentId() == f).findFirst().orElseThrow())).min().orElseThrow();
      int n = Math.min(Math.max(1, intent.intentFor(e.root()).resolve(slots)), Math.max(1, cap));
      assertThat(target.actors(e.root())).hasSize(n);
      boolean needsChange = before.actors(e.root()).size() != n
          || before.actors(e.root()).stream().anyMatch(a -> !schedulable.containsKey(a.workerId()))
          || overCapacityWithFreeSlot(before.actors(e.root()), schedulable);
      assertThat(overCapacityWithFreeSlot(target.actors(e.root()), schedulable))
          .as("ensemble %s: a worker above its slots while another has a free one", e.members()).isFalse();
      if (!needsChange) {
        for (int f : e.members()) {
          assertThat(target.actors(f)).as("ensemble %s needs no change", e.members()).isEqualTo(before.actors(f));
        }
      }
    }
    assertThat(schedulable.keySet()).containsAll(Layouts.workersOf(target));
    List<Worker> ws = new ArrayList<>(schedulable.values());
    assertThat(LayoutPlanner.forIntent(job, target, intent, ws, Jobs.noIds())).isEqualTo(target);
    assertThat(LayoutDiff.of(job, target, target).isEmpty()).isTrue();
  }

  /** Slots are capacity: some worker hosts more actors than its slots while another has a free slot. */
  static boolean overCapacityWithFreeSlot(List<ActorPlacement> actors, TreeMap<Integer, Worker> schedulable) {
    TreeMap<Integer, Integer> load = new TreeMap<>();
    schedulable.keySet().forEach(w -> load.put(w, 0));
    actors.forEach(a -> load.merge(a.workerId(), 1, Integer::sum));
    boolean over = load.entrySet().stream().anyMatch(x -> schedulable.containsKey(x.getKey()) && x.getValue() > schedulable.get(x.getKey()).slots());
    boolean free = load.entrySet().stream().anyMatch(x -> schedulable.containsKey(x.getKey()) && x.getValue() < schedulable.get(x.getKey()).slots());
    return over && free;
  }

  /** A random plan on a random root; checks it is accepted exactly when valid, and what a migration keeps. */
  static JobLayout randomPlan(JobDefinition job, JobLayout layout, TreeMap<Integer, Worker> schedulable, Jobs.Ids ids, Random rnd) {
    int root = ROOTS[rnd.nextInt(ROOTS.length)];
    List<ActorPlacement> actors = layout.actors(root);
    int cap = Math.max(1, Layouts.maxParallelism(job, job.getFragments(root)));
    if (root == Jobs.AGG) {
      cap = Math.min(cap, Layouts.maxParallelism(job, job.getFragments(Jobs.MIRROR)));
    }
    List<Integer> ws = new ArrayList<>(schedulable.keySet());
    List<Integer> hosting = new ArrayList<>(new java.util.TreeSet<>(actors.stream().map(ActorPlacement::workerId).toList()));
    int kind = rnd.nextInt(4);
    String text;
    boolean valid;
    boolean migration = false;
    if (kind == 0) {
      int from = hosting.get(rnd.nextInt(hosting.size()));
      List<Integer> others = ws.stream().filter(w -> w != from).toList();
      if (others.isEmpty()) {
        return layout;
      }
      text = root + ":[" + from + ":-1," + others.get(rnd.nextInt(others.size())) + ":+1]";
      valid = true;
      migration = true;
    } else if (kind == 1) {
      int k = 1 + rnd.nextInt(3);
      text = root + ":[" + ws.get(rnd.nextInt(ws.size())) + ":+" + k + "]";
      valid = actors.size() + k <= cap && root != Jobs.SINGLE;
    } else if (kind == 2) {
      int from = hosting.get(rnd.nextInt(hosting.size()));
      long on = actors.stream().filter(a -> a.workerId() == from).count();
      int k = 1 + rnd.nextInt(2);
      text = root + ":[" + from + ":-" + k + "]";
      valid = k <= on && actors.size() - k >= 1 && root != Jobs.SINGLE;
    } else {
      text = Jobs.MIRROR + ":[" + ws.get(0) + ":+1]";
      valid = false;
    }
    ReschedulePlan plan = ReschedulePlan.parse(text);
    List<Worker> workers = new ArrayList<>(schedulable.values());
    if (!valid) {
      assertThatThrownBy(() -> LayoutPlanner.forPlan(job, layout, plan, workers, Jobs.noIds())).as(text).isInstanceOf(RescheduleException.class);
      return layout;
    }
    long firstId = ids.next;
    JobLayout target = LayoutPlanner.forPlan(job, layout, plan, workers, ids);
    assertThat(LayoutPlanner.forPlan(job, layout, plan, workers, new Jobs.Ids(firstId))).as("deterministic").isEqualTo(target);
    int delta = plan.netDelta(root);
    Ensemble e = Ensemble.of(job).stream().filter(x -> x.root() == root).findFirst().orElseThrow();
    for (int f : e.members()) {
      assertThat(target.actors(f)).hasSize(actors.size() + delta);
    }
    if (migration) {
      // one actor dropped, one added; every other actor of the ensemble keeps worker, vnodes and splits
      for (int f : e.members()) {
        List<ActorPlacement> kept = new ArrayList<>(target.actors(f).subList(0, actors.size() - 1));
        List<ActorPlacement> old = new ArrayList<>(layout.actors(f));
        assertThat(old).containsAll(kept);
      }
    }
    LayoutDiff d = LayoutDiff.of(job, layout, target);
    assertThat(d.isEmpty()).isFalse();
    assertThat(d.addedActors()).isEqualTo(plan.fragments().get(root).stream().filter(x -> x.delta() > 0).mapToInt(WorkerDelta::delta).sum()
        * e.members().size());
    return target;
  }

  @Property(tries = 150)
  void randomWalksKeepEveryInvariantAndReplayIdentically(@ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int steps) {
    assertThat(walk(seed, steps)).isEqualTo(walk(seed, steps));
  }
}
