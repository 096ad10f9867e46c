package dev.tide.meta.admin;

import dev.tide.meta.Meta;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.MetaStats;
import dev.tide.meta.autoscale.LoadSample;
import dev.tide.meta.autoscale.WindowLoad;
import dev.tide.meta.core.MetaCore;
import dev.tide.meta.scale.Ensemble;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.admin.ActorView;
import dev.tide.proto.admin.ClusterResponse;
import dev.tide.proto.admin.FragmentKind;
import dev.tide.proto.admin.FragmentStats;
import dev.tide.proto.admin.FragmentView;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.JobSummary;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.StoreSize;
import dev.tide.proto.admin.WorkerHealth;
import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.admin.WorkerSummary;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** Pure conversions of meta's snapshot into the admin API's messages. Deterministic: ids ascending, jobs by name. */
public final class AdminViews {
  private AdminViews() {}

  public static ClusterResponse cluster(ClusterSnapshot s) {
    TreeMap<Integer, Integer> actors = new TreeMap<>();
    TreeMap<Integer, Integer> mostOfOne = new TreeMap<>();
    for (ClusterSnapshot.JobView j : s.jobs().values()) {
      j.layout().actorsPerWorker().forEach((w, n) -> actors.merge(w, n, Integer::sum));
      for (List<ActorPlacement> fragment : j.layout().fragments().values()) {
        TreeMap<Integer, Integer> perWorker = new TreeMap<>();
        fragment.forEach(a -> perWorker.merge(a.workerId(), 1, Integer::sum));
        perWorker.forEach((w, n) -> mostOfOne.merge(w, n, Math::max));
      }
    }
    ClusterResponse.Builder out = ClusterResponse.newBuilder();
    s.workers().stream().sorted((a, b) -> Integer.compare(a.id(), b.id())).forEach(w -> out.addWorkers(worker(w,
        s.draining().contains(w.id()), actors.getOrDefault(w.id(), 0)).toBuilder().setMostOfOneFragment(mostOfOne.getOrDefault(w.id(), 0))));
    s.jobs().values().forEach(j -> out.addJobs(job(j)));
    return out.build();
  }

  private static WorkerSummary worker(Worker w, boolean draining, int actors) {
    return WorkerSummary.newBuilder().setId(w.id()).setAddress(w.address()).setSlots(w.slots()).setDraining(draining)
        .setActors(actors).build();
  }

  static JobSummary job(ClusterSnapshot.JobView j) {
    JobDefinition def = j.definition();
    return JobSummary.newBuilder().setJobId(def.getJobId()).setName(def.getName()).setIntent(j.intent().render())
        .setVnodeCount(def.getVnodeCount()).setFragments(def.getFragmentsCount()).setActors(j.layout().allActors().size())
        .setPaused(j.paused()).setRescheduling(j.rescheduling()).build();
  }

  public static FragmentsResponse fragments(ClusterSnapshot.JobView j) {
    JobDefinition def = j.definition();
    JobLayout layout = j.layout();
    Map<Integer, Ensemble> ensembleOf = new TreeMap<>();
    for (Ensemble e : Ensemble.of(def)) {
      e.members().forEach(f -> ensembleOf.put(f, e));
    }
    TreeMap<Integer, Fragment> byId = new TreeMap<>();
    def.getFragmentsList().forEach(f -> byId.put(f.getFragmentId(), f));
    FragmentsResponse.Builder out = FragmentsResponse.newBuilder().setJob(job(j));
    for (Fragment f : byId.values()) {
      int id = f.getFragmentId();
      int splits = splitCount(f);
      FragmentKind kind = f.getHasSource() ? FragmentKind.SOURCE : f.getSingleton() ? FragmentKind.SINGLETON : FragmentKind.HASH;
      int units = switch (kind) {
        case SOURCE -> splits;
        case SINGLETON -> 1;
        default -> def.getVnodeCount();
      };
      Ensemble e = ensembleOf.get(id);
      FragmentView.Builder v = FragmentView.newBuilder().setFragmentId(id).setKind(kind).setUnitCount(units)
          .setEnsembleRoot(e.root()).addAllEnsemble(e.members());
      TreeSet<Integer> upstream = new TreeSet<>();
      for (FragmentEdge edge : def.getEdgesList()) {
        if (edge.getDownstreamFragmentId() == id) {
          upstream.add(edge.getUpstreamFragmentId());
        }
      }
      v.addAllUpstream(upstream);
      if (layout.fragments().containsKey(id)) {
        for (ActorPlacement a : layout.actors(id)) {
          v.addActors(ActorView.newBuilder().setActorId(a.actorId()).setWorkerId(a.workerId()).setVnodes(a.vnodes().toString())
              .addAllSplits(new TreeSet<>(a.splits())));
        }
      }
      out.addFragments(v);
    }
    return out.build();
  }

  /** {@code r} with each fragment's load over the last {@code windowMs} of committed epochs, where measured. */
  public static FragmentsResponse withStats(FragmentsResponse r, Meta meta, long windowMs) {
    long now = meta.clock().nowMillis();
    long committed = meta.stats().committedEpoch();
    FragmentsResponse.Builder b = r.toBuilder();
    for (FragmentView.Builder f : b.getFragmentsBuilderList()) {
      List<LoadSample> recent = meta.loads().samples(r.getJob().getJobId(), f.getFragmentId(), committed).stream()
          .filter(x -> x.atMs() > now - windowMs).toList();
      WindowLoad w = WindowLoad.of(recent);
      if (w != null) {
        f.setStats(FragmentStats.newBuilder().setEpochs(w.samples()).setSeconds(w.seconds()).setRowsInPerSecond(w.inRate())
            .setRowsOutPerSecond(w.outRate()).setBusy(w.busy()).setBackpressure(w.blocked()).setTrueRate(w.trueRate())
            .setBacklog(w.backlog()).setBacklogGrowthPerSecond(w.backlogGrowth())
            .setSkipped(meta.loads().skipped(r.getJob().getJobId(), f.getFragmentId(), committed)));
      }
    }
    return b.build();
  }

  private static int splitCount(Fragment f) {
    int splits = 0;
    for (PlanNode n : f.getNodesList()) {
      if (n.hasSource()) {
        splits = splits == 0 ? n.getSource().getSplitCount() : Math.min(splits, n.getSource().getSplitCount());
      }
    }
    return splits;
  }

  /** Meta's status: barriers, workers with their heartbeats, and the size of the committed version. */
  public static StatusResponse status(Meta meta, long nowMs) {
    MetaStats s = meta.stats();
    StatusResponse.Builder r = StatusResponse.newBuilder().setCommittedEpoch(s.committedEpoch()).setCommittedBarriers(s.committedBarriers())
        .setBarrierLatencyMs(Math.max(0, s.barrierLatencyMs())).setInflightBarriers(s.inflightBarriers())
        .setJobs(s.jobs()).setRecoveries(s.recoveries());
    List<MetaCore.WorkerHealth> workers = meta.workerHealth();
    r.setAliveWorkers((int) workers.stream().filter(MetaCore.WorkerHealth::alive).count());
    for (MetaCore.WorkerHealth w : workers) {
      r.addWorkers(WorkerHealth.newBuilder().setId(w.worker().id()).setAddress(w.worker().address()).setSlots(w.worker().slots())
          .setActors(w.actors()).setAlive(w.alive()).setDraining(w.draining())
          .setHeartbeatAgeMs(Math.max(0, nowMs - w.lastHeartbeatMs())));
    }
    StoreVersion v = meta.committedVersion();
    StoreSize.Builder size = StoreSize.newBuilder().setL0Ssts(v.getL0().getSstsCount())
        .setL0Bytes(v.getL0().getSstsList().stream().mapToLong(SstInfo::getFileSize).sum());
    for (Level l : v.getLevelsList()) {
      size.setLevelSsts(size.getLevelSsts() + l.getSstsCount())
          .setLevelBytes(size.getLevelBytes() + l.getSstsList().stream().mapToLong(SstInfo::getFileSize).sum());
    }
    return r.setStore(size).build();
  }
}
