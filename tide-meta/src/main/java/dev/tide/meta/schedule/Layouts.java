package dev.tide.meta.schedule;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.DispatcherInfo;
import dev.tide.proto.stream.MergeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * Pure layout functions: initial placement of a job's actors on workers' slots, the actor
 * descriptors (dispatchers, merges) a layout implies, and re-placement after losing workers.
 * Deterministic: workers and fragments are iterated in id order.
 */
public final class Layouts {
  private Layouts() {}

  /** Fragments linked by NO_SHUFFLE edges, each group sorted, groups ordered by their first fragment. */
  public static List<List<Integer>> ensembles(JobDefinition job) {
    Map<Integer, Integer> parent = new TreeMap<>();
    for (Fragment f : job.getFragmentsList()) {
      parent.put(f.getFragmentId(), f.getFragmentId());
    }
    for (FragmentEdge e : job.getEdgesList()) {
      if (e.getType() == DispatchType.NO_SHUFFLE) {
        int a = find(parent, e.getUpstreamFragmentId());
        int b = find(parent, e.getDownstreamFragmentId());
        parent.put(Math.max(a, b), Math.min(a, b));
      }
    }
    TreeMap<Integer, List<Integer>> groups = new TreeMap<>();
    for (int f : parent.keySet()) {
      groups.computeIfAbsent(find(parent, f), k -> new ArrayList<>()).add(f);
    }
    return new ArrayList<>(groups.values());
  }

  private static int find(Map<Integer, Integer> parent, int f) {
    int p = parent.get(f);
    return p == f ? f : find(parent, p);
  }

  /** Most actors a fragment can use: 1 for a singleton, the split count for a source, else the vnode count. */
  public static int maxParallelism(JobDefinition job, Fragment f) {
    if (f.getSingleton()) {
      return 1;
    }
    int max = job.getVnodeCount();
    for (var n : f.getNodesList()) {
      if (n.hasSource()) {
        max = Math.min(max, n.getSource().getSplitCount());
      }
    }
    return max;
  }

  /** Worker ids in slot order: one slot of each worker in id order, then the second slot of each, ... */
  public static List<Integer> slotSequence(List<Worker> workers) {
    List<Worker> sorted = new ArrayList<>(workers);
    sorted.sort((a, b) -> Integer.compare(a.id(), b.id()));
    int maxSlots = sorted.stream().mapToInt(Worker::slots).max().orElse(0);
    List<Integer> seq = new ArrayList<>();
    for (int r = 0; r < maxSlots; r++) {
      for (Worker w : sorted) {
        if (w.slots() > r) {
          seq.add(w.id());
        }
      }
    }
    return seq;
  }

  /** Vnodes {@code [i*V/n, (i+1)*V/n)} for actor i of n. */
  public static VnodeBitmap contiguous(int vnodeCount, int i, int n) {
    java.util.BitSet b = new java.util.BitSet(vnodeCount);
    b.set((int) ((long) i * vnodeCount / n), (int) ((long) (i + 1) * vnodeCount / n));
    return VnodeBitmap.ofBits(vnodeCount, b);
  }

  /** Splits {@code s} with {@code s mod n == i}. */
  public static List<Integer> splits(int splitCount, int i, int n) {
    List<Integer> out = new ArrayList<>();
    for (int s = i; s < splitCount; s += n) {
      out.add(s);
    }
    return out;
  }

  static int splitCount(Fragment f) {
    for (var n : f.getNodesList()) {
      if (n.hasSource()) {
        return n.getSource().getSplitCount();
      }
    }
    return 0;
  }

  /**
   * The first layout of a job: each NO_SHUFFLE ensemble gets {@code min(parallelism, its members' caps)}
   * actors per fragment, placed along the slot sequence; members of an ensemble share workers and vnodes.
   */
  public static JobLayout initial(JobDefinition job, List<Worker> workers, int parallelism, LongSupplier actorIds) {
    if (workers.isEmpty()) {
      throw new IllegalStateException("job '" + job.getName() + "' cannot be scheduled: no compute node is registered");
    }
    List<Integer> seq = slotSequence(workers);
    Map<Integer, Fragment> byId = new TreeMap<>();
    job.getFragmentsList().forEach(f -> byId.put(f.getFragmentId(), f));
    TreeMap<Integer, List<ActorPlacement>> out = new TreeMap<>();
    int offset = 0;
    for (List<Integer> ensemble : ensembles(job)) {
      int n = parallelism;
      for (int f : ensemble) {
        n = Math.min(n, maxParallelism(job, byId.get(f)));
      }
      n = Math.max(1, n);
      for (int f : ensemble) {
        Fragment frag = byId.get(f);
        int vnodes = frag.getSingleton() ? 1 : job.getVnodeCount();
        List<ActorPlacement> actors = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          int worker = seq.get((offset + i) % seq.size());
          actors.add(new ActorPlacement(actorIds.getAsLong(), worker, contiguous(vnodes, i, n), splits(splitCount(frag), i, n)));
        }
        out.put(f, actors);
      }
      offset += n;
    }
    return new JobLayout(out);
  }

  /**
   * Moves actors off lost workers onto the live ones, keeping actor ids, vnodes and splits. The
   * actors at one index of a NO_SHUFFLE ensemble move together (they stay on one worker); each goes
   * to the least loaded live worker (actors of the job per slot; ties: lower id).
   */
  public static JobLayout withoutWorkers(JobDefinition job, JobLayout layout, Set<Integer> lost, List<Worker> alive) {
    if (alive.isEmpty()) {
      throw new IllegalStateException("no compute node left to run the job's actors");
    }
    TreeMap<Integer, Worker> workers = new TreeMap<>();
    alive.forEach(w -> workers.put(w.id(), w));
    TreeMap<Integer, Integer> load = new TreeMap<>();
    workers.keySet().forEach(w -> load.put(w, 0));
    layout.allActors().forEach(a -> load.computeIfPresent(a.workerId(), (w, n) -> n + 1));
    TreeMap<Integer, List<ActorPlacement>> out = new TreeMap<>();
    layout.fragments().forEach((f, actors) -> out.put(f, new ArrayList<>(actors)));
    for (List<Integer> ensemble : ensembles(job)) {
      List<ActorPlacement> root = layout.actors(ensemble.get(0));
      for (int i = 0; i < root.size(); i++) {
        if (!lost.contains(root.get(i).workerId())) {
          continue;
        }
        int target = -1;
        for (int w : load.keySet()) {
          if (target < 0 || (long) load.get(w) * workers.get(target).slots() < (long) load.get(target) * workers.get(w).slots()) {
            target = w;
          }
        }
        for (int f : ensemble) {
          List<ActorPlacement> actors = out.get(f);
          actors.set(i, actors.get(i).onWorker(target));
          load.merge(target, 1, Integer::sum);
        }
      }
    }
    return new JobLayout(out);
  }

  /**
   * Descriptors of every actor of the job: vnodes, splits, dispatchers, merges and the actors of its fragment. Dispatchers name
   * each downstream actor's worker and that worker's address (its exchange endpoint).
   *
   * @param addresses address of each worker the layout uses, by worker id
   */
  public static List<ActorInfo> actorInfos(JobDefinition job, JobLayout layout, Map<Integer, String> addresses) {
    List<ActorInfo> out = new ArrayList<>();
    for (Fragment f : job.getFragmentsList()) {
      List<ActorPlacement> actors = layout.actors(f.getFragmentId());
      for (int i = 0; i < actors.size(); i++) {
        ActorPlacement a = actors.get(i);
        ActorInfo.Builder b = ActorInfo.newBuilder().setActorId(a.actorId()).setFragmentId(f.getFragmentId())
            .setJobId(job.getJobId()).setWorkerId(a.workerId()).setVnodes(a.vnodes().toString()).addAllSplits(a.splits());
        actors.forEach(peer -> b.addFragmentActorIds(peer.actorId()));
        for (FragmentEdge e : job.getEdgesList()) {
          if (e.getUpstreamFragmentId() == f.getFragmentId()) {
            b.addDispatchers(dispatcher(job, e, layout.actors(e.getDownstreamFragmentId()), i, addresses));
          }
          if (e.getDownstreamFragmentId() == f.getFragmentId()) {
            List<ActorPlacement> ups = layout.actors(e.getUpstreamFragmentId());
            MergeInfo.Builder m = MergeInfo.newBuilder().setUpstreamFragmentId(e.getUpstreamFragmentId());
            if (e.getType() == DispatchType.NO_SHUFFLE) {
              m.addUpstreamActorIds(ups.get(i).actorId());
            } else {
              ups.forEach(u -> m.addUpstreamActorIds(u.actorId()));
            }
            b.addMerges(m);
          }
        }
        out.add(b.build());
      }
    }
    return out;
  }

  static DispatcherInfo dispatcher(JobDefinition job, FragmentEdge e, List<ActorPlacement> downs, int index,
      Map<Integer, String> addresses) {
    DispatcherInfo.Builder d = DispatcherInfo.newBuilder().setDownstreamFragmentId(e.getDownstreamFragmentId())
        .setType(e.getType()).addAllDistKey(e.getDistKeyList());
    java.util.function.Consumer<ActorPlacement> add = a -> {
      String address = addresses.get(a.workerId());
      if (address == null) {
        throw new IllegalStateException("actor " + a.actorId() + " of fragment " + e.getDownstreamFragmentId() + " of job "
            + job.getJobId() + " is placed on worker " + a.workerId() + ", which has no known address");
      }
      d.addDownstreamActorIds(a.actorId()).addDownstreamWorkerIds(a.workerId()).addDownstreamAddresses(address);
    };
    switch (e.getType()) {
      case NO_SHUFFLE -> add.accept(downs.get(index));
      case SIMPLE -> add.accept(downs.get(0));
      case BROADCAST -> downs.forEach(add);
      case HASH -> {
        downs.forEach(add);
        List<VnodeBitmap> bitmaps = downs.stream().map(ActorPlacement::vnodes).toList();
        for (int owner : VnodeBitmap.ownerArray(job.getVnodeCount(), bitmaps)) {
          if (owner < 0) {
            throw new IllegalStateException("fragment " + e.getDownstreamFragmentId() + " of job " + job.getJobId()
                + " leaves a vnode without an owner");
          }
          d.addVnodeOwner(owner);
        }
      }
      default -> throw new IllegalArgumentException("unknown dispatch type " + e.getType());
    }
    return d.build();
  }

  /** Workers that host at least one actor of the layout. */
  public static Set<Integer> workersOf(JobLayout layout) {
    Set<Integer> out = new TreeSet<>();
    layout.allActors().forEach(a -> out.add(a.workerId()));
    return out;
  }
}
