package dev.tide.meta.scale;

import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import java.util.List;
import java.util.TreeMap;

/** What the planners need to know about a job's fragments: ensembles, caps, unit counts. Immutable. */
final class JobShape {
  final JobDefinition job;
  final TreeMap<Integer, Fragment> fragments = new TreeMap<>();
  final List<Ensemble> ensembles;
  private final TreeMap<Integer, Ensemble> ensembleOf = new TreeMap<>();

  private JobShape(JobDefinition job) {
    this.job = job;
    for (Fragment f : job.getFragmentsList()) {
      fragments.put(f.getFragmentId(), f);
    }
    this.ensembles = Ensemble.of(job);
    for (Ensemble e : ensembles) {
      e.members().forEach(f -> ensembleOf.put(f, e));
    }
  }

  static JobShape of(JobDefinition job) {
    return new JobShape(job);
  }

  String jobLabel() {
    return "job '" + job.getName() + "' (id " + job.getJobId() + ")";
  }

  boolean has(int fragmentId) {
    return fragments.containsKey(fragmentId);
  }

  Ensemble ensembleOf(int fragmentId) {
    return ensembleOf.get(fragmentId);
  }

  boolean isSingleton(int fragmentId) {
    return fragments.get(fragmentId).getSingleton();
  }

  /** The singleton member of the ensemble, or -1. */
  int singletonMember(Ensemble e) {
    for (int f : e.members()) {
      if (isSingleton(f)) {
        return f;
      }
    }
    return -1;
  }

  /** Units of a fragment's vnode bitmaps: 1 for a singleton, else the job's vnode count. */
  int vnodeUnits(int fragmentId) {
    return isSingleton(fragmentId) ? 1 : job.getVnodeCount();
  }

  boolean isSource(int fragmentId) {
    return sourceNode(fragmentId) != null;
  }

  /** The split count of a source fragment, 0 for others. */
  int splitCount(int fragmentId) {
    PlanNode n = sourceNode(fragmentId);
    return n == null ? 0 : n.getSource().getSplitCount();
  }

  private PlanNode sourceNode(int fragmentId) {
    for (PlanNode n : fragments.get(fragmentId).getNodesList()) {
      if (n.hasSource()) {
        return n;
      }
    }
    return null;
  }

  /** The ensemble's largest parallelism: the least {@link Layouts#maxParallelism} of its members, at least 1. */
  int cap(Ensemble e) {
    int cap = Integer.MAX_VALUE;
    for (int f : e.members()) {
      cap = Math.min(cap, Layouts.maxParallelism(job, fragments.get(f)));
    }
    return Math.max(1, cap);
  }

  /** Why {@code parallelism} is above {@link #cap}: "parallelism 300 exceeds the job's vnode count 256". */
  String capExceeded(Ensemble e, int parallelism) {
    int cap = cap(e);
    for (int f : e.members()) {
      if (isSource(f) && splitCount(f) < job.getVnodeCount() && Math.max(1, splitCount(f)) == cap) {
        return "parallelism " + parallelism + " exceeds the split count " + splitCount(f) + " of source fragment " + f
            + (e.isLinked() ? " in its ensemble " + e.members() : "");
      }
    }
    return "parallelism " + parallelism + " exceeds the job's vnode count " + job.getVnodeCount();
  }

  /** The layout covers exactly the job's fragments, and every ensemble member has its root's actor count. */
  void check(JobLayout layout, String what) {
    if (!layout.fragments().keySet().equals(fragments.keySet())) {
      throw new IllegalArgumentException(what + " of " + jobLabel() + " covers fragments " + layout.fragments().keySet()
          + " but the job has " + fragments.keySet());
    }
    for (Ensemble e : ensembles) {
      int n = layout.actors(e.root()).size();
      for (int f : e.members()) {
        List<ActorPlacement> actors = layout.actors(f);
        if (actors.size() != n) {
          throw new IllegalArgumentException(what + " of " + jobLabel() + " is inconsistent: fragment " + f + " has " + actors.size()
              + " actors but the root " + e.root() + " of its ensemble " + e.members() + " has " + n);
        }
      }
    }
  }
}
