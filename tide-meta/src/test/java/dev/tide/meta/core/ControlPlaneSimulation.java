package dev.tide.meta.core;

import dev.tide.common.config.Config;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleResult;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.Jobs;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.store.JobRecord;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.Barrier;
import dev.tide.proto.stream.Mutation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A seeded simulation of the control plane: the real {@link MetaCore} and planners, simulated compute
 * nodes that follow the stream service's protocol, a simulated meta store, a network with latency and
 * per-node FIFO delivery, and simulated time. A random scenario of job creates and drops, scales,
 * plans, pauses and resumes, worker joins, drains, crashes, lost heartbeats, meta restarts and store
 * failures runs concurrently (requests are not awaited before the next one), and invariants are
 * checked after every event. Everything derives from the seed: a failing seed replays the same trace.
 *
 * <p>Invariants: every job's layout partitions its vnodes and splits per fragment (once each); the
 * source actors of a job agree on whether it is paused at every barrier, and once the cluster is
 * quiet they are paused exactly when the catalog says so; a reschedule answered as applied has its
 * layout and intent in the store; a drained worker hosts nothing when it is told to leave, and is
 * never called or placed on again; no two reschedules of a job are in flight; committed epochs rise;
 * a barrier names only actors built on its worker; every request is answered.
 */
final class ControlPlaneSimulation {
  static final Config CONFIG = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(500))
      .with(MetaOptions.HEARTBEAT_TIMEOUT, Duration.ofSeconds(3)).with(MetaOptions.SETTLE_DELAY, Duration.ofSeconds(1))
      .with(MetaOptions.MAX_INFLIGHT_BARRIERS, 4);
  static final long HEARTBEAT_MS = 1000;

  /** An invariant broke; the message holds the seed and the trace. */
  static final class Violation extends AssertionError {
    Violation(String message) {
      super(message);
    }
  }

  private final long seed;
  private final Random rnd;
  private final SimMetaStore store = new SimMetaStore();
  private final List<String> trace = new ArrayList<>();
  private final PriorityQueue<Scheduled> queue = new PriorityQueue<>();
  private final List<Node> nodes = new ArrayList<>();
  private final Map<Long, Consumer<Effect.Reply>> waiting = new HashMap<>();
  private final Map<Long, Long> sentAt = new HashMap<>();
  private final Map<String, Node> byAddress = new HashMap<>();
  private final Map<Integer, String> connected = new HashMap<>(); // worker -> address of its channel
  private final Set<Integer> leftWorkers = new HashSet<>();
  private final Map<Integer, Long> updateInFlight = new TreeMap<>(); // job -> prev epoch of its uncommitted Update
  private final Map<String, Integer> jobsByName = new TreeMap<>();
  private MetaCore core;
  private long incarnation;
  private long runId = 1;
  private long now;
  private long seq;
  private long nextPollAt;
  private long requestIds;
  private long lastCommittedEpoch;
  private int jobCounter;
  private int addressCounter;
  private boolean quiet;
  private int pollsAtOnce;
  final Map<String, Integer> counts = new TreeMap<>();

  ControlPlaneSimulation(long seed) {
    this.seed = seed;
    this.rnd = new Random(seed);
  }

  // ---------------------------------------------------------------- the world

  private record Scheduled(long at, long seq, Runnable action) implements Comparable<Scheduled> {
    @Override
    public int compareTo(Scheduled o) {
      return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
    }
  }

  private void at(long time, Runnable action) {
    queue.add(new Scheduled(time, seq++, action));
  }

  private long latency() {
    return 1 + rnd.nextInt(20);
  }

  /** A simulated compute node process. */
  private final class Node {
    final String address = "node-" + ++addressCounter;
    final int slots;
    int workerId = -1;
    boolean up = true;
    boolean heartbeating = true;
    boolean left;
    long lastDeliveryAt;
    /** When the node last stopped its actors by itself (meta did not know it any more). */
    long selfResetAt = -1;
    long committedEpoch;
    final TreeMap<Long, SimActor> actors = new TreeMap<>();

    Node(int slots) {
      this.slots = slots;
      byAddress.put(address, this);
    }

    void register() {
      request(new Command.RegisterWorker(address, slots), r -> {
        if (r.error() == null && up) {
          workerId = ((Command.Registered) r.value()).workerId(); // actors built meanwhile stay, as on a ComputeNode
          trace("node " + address + " registered as worker " + workerId);
        } else if (up) {
          at(now + 200, this::register);
        }
      });
    }

    void heartbeatTick() {
      if (!up || left) {
        return;
      }
      if (heartbeating && workerId >= 0) {
        int id = workerId;
        request(new Command.Heartbeat(id, actors.size(), 0, 0), r -> {
          if (r.error() != null || !up || left || workerId != id) {
            return;
          }
          Command.Verdict v = (Command.Verdict) r.value();
          if (v == Command.Verdict.LEAVE) {
            leave();
          } else if (v == Command.Verdict.REGISTER_AGAIN) {
            trace("node " + address + " (worker " + id + ") is unknown to meta: stops its actors and registers again");
            actors.clear();
            selfResetAt = now;
            workerId = -1;
            register();
          }
        });
      }
      at(now + HEARTBEAT_MS, this::heartbeatTick);
    }

    void leave() {
      trace("node " + address + " (worker " + workerId + ") told to leave");
      check(actors.isEmpty(), "worker " + workerId + " was told to leave while it runs actors " + actors.keySet());
      for (ClusterSnapshot.JobView j : core.snapshot().jobs().values()) {
        check(!Layouts.workersOf(j.layout()).contains(workerId), "worker " + workerId + " was told to leave but job '"
            + j.definition().getName() + "' places actors on it");
      }
      left = true;
      up = false;
      leftWorkers.add(workerId);
      count("leaves");
    }

    /** Handles one call; returns the failure (null: success) and whether it was unreachable. */
    Event.CallDone handle(Effect.Call c, long sentAt) {
      if (!up) {
        return new Event.CallDone(c.token(), c.workerId(), "UNAVAILABLE: node down", true);
      }
      Effect.Rpc rpc = c.rpc();
      if (rpc instanceof Effect.Rpc.Build b) {
        for (ActorInfo a : b.request().getActorsList()) {
          if (actors.containsKey(a.getActorId())) {
            return new Event.CallDone(c.token(), c.workerId(), "INVALID_ARGUMENT: actor " + a.getActorId() + " already runs", false);
          }
        }
        for (ActorInfo a : b.request().getActorsList()) {
          actors.put(a.getActorId(), new SimActor(a, isSource(b.request().getJob(), a.getFragmentId()), b.request().getPaused()));
        }
      } else if (rpc instanceof Effect.Rpc.Inject i) {
        inject(i, sentAt);
      } else if (rpc instanceof Effect.Rpc.CommitVersion v) {
        long epoch = v.request().getVersion().getMaxCommittedEpoch();
        check(epoch >= committedEpoch, "worker " + workerId + " heard of committed epoch " + epoch + " after " + committedEpoch);
        committedEpoch = epoch;
      } else if (rpc instanceof Effect.Rpc.Reset r) {
        actors.clear();
        committedEpoch = r.request().getVersion().getMaxCommittedEpoch();
      }
      return Event.CallDone.ok(c.token(), c.workerId());
    }

    private void inject(Effect.Rpc.Inject i, long sentAt) {
      Barrier b = i.request().getBarrier();
      if (sentAt < selfResetAt) {
        return; // meant for actors this node stopped when meta forgot it; meta has declared that worker lost
      }
      for (long a : i.request().getActorsToCollectList()) {
        check(actors.containsKey(a), "barrier " + b.getCurrEpoch() + " names actor " + a + " that was never built on worker " + workerId);
      }
      Mutation m = b.hasMutation() ? b.getMutation() : null;
      Set<Long> collect = new HashSet<>(i.request().getActorsToCollectList());
      if (m != null && m.hasUpdate()) {
        for (ActorInfo a : m.getUpdate().getActorsList()) {
          SimActor s = actors.get(a.getActorId());
          if (s != null) {
            s.info = a;
          }
        }
      }
      TreeMap<Integer, Boolean> pausedSeen = new TreeMap<>();
      for (long id : collect) {
        SimActor s = actors.get(id);
        if (m != null && m.hasPause() && (m.getPause().getJobIdsCount() == 0 || m.getPause().getJobIdsList().contains(s.info.getJobId()))) {
          s.paused = true;
        }
        if (m != null && m.hasResume() && (m.getResume().getJobIdsCount() == 0 || m.getResume().getJobIdsList().contains(s.info.getJobId()))) {
          s.paused = false;
        }
        if (m != null && m.hasUpdate() && m.getUpdate().getJobId() == s.info.getJobId()) {
          s.paused = m.getUpdate().getPaused();
        }
        if (s.source) {
          Boolean before = pausedSeen.putIfAbsent(s.info.getJobId(), s.paused);
          check(before == null || before == s.paused, "job " + s.info.getJobId() + ": its sources disagree on pause at barrier "
              + b.getCurrEpoch() + " on worker " + workerId);
          String key = s.info.getJobId() + "@" + i.request().getRunId() + "/" + b.getCurrEpoch();
          Boolean elsewhere = pauseAtBarrier.putIfAbsent(key, s.paused);
          check(elsewhere == null || elsewhere == s.paused, "job " + s.info.getJobId() + ": its sources on different workers disagree"
              + " on pause at barrier " + b.getCurrEpoch());
        }
      }
      if (m != null && m.hasStop()) {
        m.getStop().getActorIdsList().forEach(actors::remove);
      }
      if (m != null && m.hasUpdate()) {
        m.getUpdate().getDroppedActorIdsList().forEach(actors::remove);
      }
      int worker = i.request().getWorkerId(); // a node reports under the id the barrier names, as ComputeNode does
      long report = b.getPrevEpoch();
      long run = i.request().getRunId();
      at(now + latency() + rnd.nextInt(30), () -> {
        if (up) {
          deliver(new Event.Collected(worker, run, report, List.of()));
        }
      });
    }
  }

  private final Map<String, Boolean> pauseAtBarrier = new HashMap<>();

  private static final class SimActor {
    ActorInfo info;
    final boolean source;
    boolean paused;

    SimActor(ActorInfo info, boolean source, boolean paused) {
      this.info = info;
      this.source = source;
      this.paused = paused;
    }
  }

  private static boolean isSource(JobDefinition def, int fragmentId) {
    for (Fragment f : def.getFragmentsList()) {
      if (f.getFragmentId() == fragmentId) {
        return f.getHasSource();
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- meta and its driver

  private void startMeta() {
    incarnation++;
    core = new MetaCore(CONFIG, store.load(), runId++, now);
    connected.clear();
    run(core.start(now));
  }

  private void restartMeta(String why) {
    trace("meta restarts: " + why);
    count("meta restarts");
    List<Consumer<Effect.Reply>> pending = new ArrayList<>(waiting.values());
    waiting.clear();
    sentAt.clear();
    pending.forEach(c -> c.accept(new Effect.Reply(-1, null, new IllegalStateException("meta restarted"))));
    updateInFlight.clear();
    startMeta();
  }

  private void deliver(Event e) {
    run(core.handle(now, e));
  }

  private void request(Command c, Consumer<Effect.Reply> onReply) {
    long id = ++requestIds;
    waiting.put(id, onReply);
    sentAt.put(id, now);
    long inc = incarnation;
    at(now + latency(), () -> {
      if (incarnation == inc) { // a heartbeat is stamped when it arrives, as the driver does
        deliver(new Event.Request(id, c instanceof Command.Heartbeat h
            ? new Command.Heartbeat(h.workerId(), h.actors(), h.minReaderVersion(), now) : c));
      }
    });
  }

  /** Executes a step's effects as the driver does, then checks the invariants. */
  private void run(Step step) {
    long inc = incarnation;
    for (Effect e : step.effects()) {
      if (e instanceof Effect.Persist p) {
        try {
          StoreWrites.apply(store, p.write());
        } catch (RuntimeException ex) {
          restartMeta("store write " + p.write().getClass().getSimpleName() + " failed: " + ex.getMessage());
          return;
        }
        observe(p.write());
      } else if (e instanceof Effect.Connect c) {
        connected.put(c.workerId(), c.address());
      } else if (e instanceof Effect.Disconnect d) {
        connected.remove(d.workerId());
      } else if (e instanceof Effect.Call c) {
        observe(c);
        Node n = connected.containsKey(c.workerId()) ? byAddress.get(connected.get(c.workerId())) : null;
        if (n == null) {
          at(now + latency(), () -> outcome(inc, new Event.CallDone(c.token(), c.workerId(), "UNAVAILABLE: no channel", true)));
          continue;
        }
        long deliverAt = Math.max(now + latency(), n.lastDeliveryAt);
        n.lastDeliveryAt = deliverAt;
        long sent = now;
        at(deliverAt, () -> {
          if (incarnation != inc) {
            return; // a call of a meta before a restart: the node may still get it, the new meta never hears back
          }
          Event.CallDone done = n.handle(c, sent);
          at(now + latency(), () -> outcome(inc, done));
        });
      } else if (e instanceof Effect.Reply r) {
        Consumer<Effect.Reply> c = waiting.remove(r.requestId());
        sentAt.remove(r.requestId());
        check(c != null, "a reply to request " + r.requestId() + ", which nobody waits for (answered twice?)");
        at(now + latency(), () -> c.accept(r));
      }
    }
    nextPollAt = step.nextDeadlineMs();
    checkInvariants();
  }

  private void outcome(long inc, Event.CallDone done) {
    if (incarnation == inc) {
      deliver(done);
    }
  }

  private long lastTracedBarrier = -1;

  private boolean firstOfBarrier(Effect.Rpc.Inject i) {
    long e = i.request().getBarrier().getCurrEpoch() * 1_000_003 + i.request().getRunId();
    boolean first = e != lastTracedBarrier;
    lastTracedBarrier = e;
    return first;
  }

  /** What the driver sees go by: calls and writes. */
  private void observe(Effect.Call c) {
    check(!leftWorkers.contains(c.workerId()), "a call to worker " + c.workerId() + " after it was told to leave");
    if (c.rpc() instanceof Effect.Rpc.Build b) {
      trace("meta: build on worker " + c.workerId() + " job " + b.request().getJob().getJobId() + " actors "
          + b.request().getActorsList().stream().map(ActorInfo::getActorId).toList() + (b.request().getPaused() ? " paused" : ""));
    } else if (c.rpc() instanceof Effect.Rpc.Reset) {
      trace("meta: reset worker " + c.workerId());
    } else if (c.rpc() instanceof Effect.Rpc.Inject i && i.request().getBarrier().hasMutation()
        && i.request().getWorkerId() == c.workerId() && firstOfBarrier(i)) {
      Mutation m = i.request().getBarrier().getMutation();
      trace("meta: barrier " + i.request().getBarrier().getCurrEpoch() + " carries " + (m.hasPause() ? "Pause " + m.getPause().getJobIdsList()
          : m.hasResume() ? "Resume " + m.getResume().getJobIdsList() : m.hasStop() ? "Stop" : "Update of job " + m.getUpdate().getJobId()
          + " +" + m.getUpdate().getAddedActorIdsList() + " -" + m.getUpdate().getDroppedActorIdsList()));
    }
    if (c.rpc() instanceof Effect.Rpc.Inject i && i.request().getBarrier().getMutation().hasUpdate()) {
      int job = i.request().getBarrier().getMutation().getUpdate().getJobId();
      long prev = i.request().getBarrier().getPrevEpoch();
      Long other = updateInFlight.get(job);
      check(other == null || other == prev, "job " + job + " has two reschedules in flight (epochs " + other + " and " + prev + ")");
      updateInFlight.put(job, prev);
    }
    if (c.rpc() instanceof Effect.Rpc.Reset) {
      updateInFlight.clear(); // a recovery: barriers in flight never commit
    }
  }

  private void observe(Effect.Write w) {
    if (w instanceof Effect.Write.CommitVersion v) {
      long epoch = v.version().getMaxCommittedEpoch();
      check(epoch > lastCommittedEpoch, "epoch " + epoch + " committed after " + lastCommittedEpoch);
      lastCommittedEpoch = epoch;
      updateInFlight.values().removeIf(prev -> prev <= epoch);
      count("commits");
    }
  }

  // ---------------------------------------------------------------- invariants

  private void check(boolean ok, String what) {
    if (!ok) {
      throw new Violation("seed " + seed + " at " + now + " ms: " + what + "\ntrace:\n  " + String.join("\n  ", trace));
    }
  }

  /** Layouts already checked (a layout is an immutable value; most steps change none). */
  private final Set<JobLayout> checked = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

  private void checkInvariants() {
    ClusterSnapshot s = core.snapshot();
    for (ClusterSnapshot.JobView j : s.jobs().values()) {
      if (!checked.add(j.layout())) {
        continue;
      }
      try {
        Jobs.checkInvariants(j.definition(), j.layout(), false);
      } catch (AssertionError e) {
        check(false, "job '" + j.definition().getName() + "': " + e.getMessage());
      }
      for (int w : Layouts.workersOf(j.layout())) {
        check(!leftWorkers.contains(w), "job '" + j.definition().getName() + "' places actors on worker " + w + ", which left");
      }
    }
  }

  /** Once quiet: every live source actor is paused exactly when the catalog says so, and requests are answered. */
  private void checkQuiet() {
    ClusterSnapshot s = core.snapshot();
    check(core.recoveryReason() == null, "still recovering after a quiet period: " + core.recoveryReason());
    for (ClusterSnapshot.JobView j : s.jobs().values()) {
      for (Node n : nodes) {
        if (!n.up) {
          continue;
        }
        for (SimActor a : n.actors.values()) {
          if (a.source && a.info.getJobId() == j.definition().getJobId()) {
            check(a.paused == j.paused(), "job '" + j.definition().getName() + "' is " + (j.paused() ? "" : "not ") + "paused in the"
                + " catalog, but its source actor " + a.info.getActorId() + " on worker " + n.workerId + " is " + (a.paused ? "" : "not ")
                + "paused");
          }
        }
      }
      check(!j.rescheduling(), "job '" + j.definition().getName() + "' still rescheduling after a quiet period");
    }
    // What runs is what the catalog says: the same actors, on the same workers.
    TreeMap<Long, Integer> placed = new TreeMap<>();
    s.jobs().values().forEach(j -> j.layout().allActors().forEach(a -> placed.put(a.actorId(), a.workerId())));
    TreeMap<Long, Integer> running = new TreeMap<>();
    for (Node n : nodes) {
      if (n.up && n.workerId >= 0) {
        n.actors.keySet().forEach(a -> running.put(a, n.workerId));
      }
    }
    check(placed.equals(running), "after a quiet period the actors running " + running + " differ from the catalog's " + placed);
    List<Long> unanswered = sentAt.entrySet().stream().filter(e -> now - e.getValue() > 1000).map(Map.Entry::getKey).sorted().toList();
    check(unanswered.isEmpty(), "requests never answered: " + unanswered);
  }

  private void trace(String line) {
    trace.add(now + " " + line);
  }

  private void count(String what) {
    counts.merge(what, 1, Integer::sum);
  }

  // ---------------------------------------------------------------- the scenario

  /** Runs the scenario for {@code durationMs} of simulated time; returns the trace. */
  List<String> run(long durationMs) {
    startMeta();
    for (int i = 0; i < 3; i++) {
      addNode(1 + rnd.nextInt(3));
    }
    at(500, this::createJob);
    at(1000 + rnd.nextInt(1000), this::scenarioStep);
    long quietFrom = durationMs;
    while (true) {
      Scheduled next = queue.peek();
      long t = Math.min(next == null ? Long.MAX_VALUE : next.at(), nextPollAt);
      if (t > quietFrom + 30_000) {
        break;
      }
      if (!quiet && t >= quietFrom) {
        quiet = true;
        trace("quiet: no more requests or faults; nodes " + nodes.stream().map(n -> n.address + (n.up ? "=" + n.workerId : "(down)")).toList());
        Set<Integer> active = new HashSet<>();
        core.workerHealth().stream().filter(w -> w.state().equals("active")).forEach(w -> active.add(w.worker().id()));
        if (nodes.stream().noneMatch(n -> n.up && active.contains(n.workerId))) {
          addNode(2); // as an operator would: jobs need somewhere to run
        }
      }
      if (t == now && t == nextPollAt && (next == null || next.at() > t)) {
        check(++pollsAtOnce < 1000, "the core asks to be polled again and again at " + now + " ms without progress");
      } else {
        pollsAtOnce = 0;
      }
      now = Math.max(now, t);
      if (next != null && next.at() <= nextPollAt) {
        queue.poll().action().run();
      } else {
        run(core.poll(now));
      }
    }
    checkQuiet();
    return trace;
  }

  private void addNode(int slots) {
    Node n = new Node(slots);
    nodes.add(n);
    trace("node " + n.address + " starts with " + slots + " slots");
    n.register();
    at(now + HEARTBEAT_MS, n::heartbeatTick);
  }

  private void scenarioStep() {
    if (quiet) {
      return;
    }
    int pick = rnd.nextInt(100);
    if (pick < 8) {
      createJob();
    } else if (pick < 12) {
      job().ifPresent(j -> {
        trace("request: drop " + j);
        request(new Command.DropJob(j), r -> result("drop " + j, r));
      });
    } else if (pick < 22) {
      job().ifPresent(j -> {
        boolean p = rnd.nextBoolean();
        trace("request: " + (p ? "pause " : "resume ") + j);
        request(new Command.SetPaused(j, p), r -> result((p ? "pause " : "resume ") + j, r));
      });
    } else if (pick < 40) {
      job().ifPresent(j -> reschedule(j, randomIntentChange()));
    } else if (pick < 50) {
      job().ifPresent(j -> reschedule(j, new Command.Change.ScaleFragment(Jobs.AGG, Intent.fixed(1 + rnd.nextInt(4)))));
    } else if (pick < 62) {
      job().ifPresent(this::randomPlan);
    } else if (pick < 70) {
      live().ifPresent(n -> {
        trace("request: drain worker " + n.workerId);
        request(new Command.DrainWorker(n.workerId), r -> result("drain", r));
      });
    } else if (pick < 78) {
      addNode(1 + rnd.nextInt(3));
    } else if (pick < 83) {
      live().ifPresent(n -> {
        trace("fault: node " + n.address + " (worker " + n.workerId + ") crashes");
        n.up = false;
        count("crashes");
      });
    } else if (pick < 88) {
      live().ifPresent(n -> {
        long ms = 2000 + rnd.nextInt(6000);
        trace("fault: heartbeats of worker " + n.workerId + " lost for " + ms + " ms");
        n.heartbeating = false;
        at(now + ms, () -> n.heartbeating = true);
        count("lost heartbeats");
      });
    } else if (pick < 93) {
      restartMeta("scenario");
    } else if (pick < 95) {
      trace("fault: the next store write fails");
      store.failNextWrite();
    } else {
      job().ifPresent(j -> {
        trace("request: dry run of " + j);
        request(new Command.Reschedule(j, randomIntentChange(), true), r -> result("dry run", r));
      });
    }
    at(now + 200 + rnd.nextInt(2500), this::scenarioStep);
  }

  private Command.Change randomIntentChange() {
    return switch (rnd.nextInt(3)) {
      case 0 -> new Command.Change.ScaleJob(Intent.fixed(1 + rnd.nextInt(8)));
      case 1 -> new Command.Change.ScaleJob(Intent.adaptive());
      default -> new Command.Change.SetIntent(JobIntent.of(Intent.bounded(1 + rnd.nextInt(6))));
    };
  }

  private void createJob() {
    int n = ++jobCounter;
    String name = "j" + n;
    trace("request: create " + name);
    request(new Command.AllocateJobIds(), r -> {
      if (r.error() != null) {
        return;
      }
      Command.JobIds ids = (Command.JobIds) r.value();
      JobDefinition def = Jobs.job(new int[] {16, 64, 256}[rnd.nextInt(3)], 1 + rnd.nextInt(8)).toBuilder().setJobId(ids.jobId())
          .setName(name).build();
      request(new Command.CreateJob(def), c -> {
        result("create " + name, c);
        if (c.error() == null) {
          jobsByName.put(name, ids.jobId());
        }
      });
    });
  }

  private void reschedule(String job, Command.Change change) {
    trace("request: reschedule " + job + " " + change);
    request(new Command.Reschedule(job, change, false), r -> {
      result("reschedule " + job, r);
      if (r.error() == null && ((RescheduleResult) r.value()).applied()) {
        count("reschedules applied");
        checkStored(job, (RescheduleResult) r.value());
      }
    });
  }

  /** A reschedule answered as applied: its layout and intent are in the store (unless the job was dropped since). */
  private void checkStored(String job, RescheduleResult result) {
    Integer id = jobsByName.get(job);
    ClusterSnapshot.JobView v = core.snapshot().jobs().get(job);
    JobRecord stored = id == null ? null : store.job(id);
    if (v == null || stored == null || v.rescheduling()) {
      return; // dropped meanwhile, or a later reschedule already runs
    }
    check(stored.layout().equals(v.layout()), "job '" + job + "': the stored layout differs from the one running after an applied"
        + " reschedule");
    check(stored.intent().equals(v.intent()), "job '" + job + "': stored intent " + stored.intent().render() + ", running "
        + v.intent().render());
  }

  private void randomPlan(String job) {
    ClusterSnapshot.JobView v = core.snapshot().jobs().get(job);
    if (v == null) {
      return;
    }
    int root = rnd.nextBoolean() ? Jobs.SOURCE : Jobs.AGG;
    List<ActorPlacement> actors = v.layout().actors(root);
    List<Integer> workers = new ArrayList<>(v.layout().actorsPerWorker().keySet());
    List<Integer> schedulable = core.snapshot().workers().stream().map(w -> w.id()).filter(w -> !core.snapshot().draining().contains(w))
        .toList();
    if (schedulable.isEmpty() || actors.isEmpty()) {
      return;
    }
    int from = actors.get(rnd.nextInt(actors.size())).workerId();
    int to = schedulable.get(rnd.nextInt(schedulable.size()));
    String text = switch (from == to ? 1 + rnd.nextInt(2) : rnd.nextInt(3)) {
      case 0 -> root + ":[" + from + ":-1," + to + ":+1]";
      case 1 -> root + ":[" + to + ":+1]";
      default -> root + ":[" + from + ":-1]";
    };
    reschedule(job, new Command.Change.ApplyPlan(ReschedulePlan.parse(text)));
  }

  private java.util.Optional<String> job() {
    List<String> names = new ArrayList<>(core.snapshot().jobs().keySet());
    if (names.isEmpty() || rnd.nextInt(10) == 0) {
      return java.util.Optional.of("nope"); // requests naming an unknown job are refused and change nothing
    }
    return java.util.Optional.of(names.get(rnd.nextInt(names.size())));
  }

  private java.util.Optional<Node> live() {
    List<Node> live = nodes.stream().filter(n -> n.up && n.workerId >= 0).toList();
    return live.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(live.get(rnd.nextInt(live.size())));
  }

  private void result(String what, Effect.Reply r) {
    trace("reply: " + what + (r.error() == null ? " ok" + (r.value() instanceof RescheduleResult rr ? (rr.applied() ? " (applied)"
        : " (nothing to move)") : "") : " refused: " + r.error().getMessage()));
    count(r.error() == null ? "requests ok" : "requests refused");
  }
}
