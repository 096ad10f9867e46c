package dev.tide.meta.scale;

import dev.tide.meta.schedule.Layouts;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * Fragments linked by NO_SHUFFLE edges, scaled as one: every member has the same actor count and
 * actor i of every member runs on the same worker with the same vnodes. The {@code root} drives it:
 * the lowest-id member without a NO_SHUFFLE input from another member (its most upstream fragment).
 * A fragment without NO_SHUFFLE links is an ensemble of one.
 */
public record Ensemble(int root, List<Integer> members) {
  public Ensemble {
    members = List.copyOf(members);
    if (!members.contains(root)) {
      throw new IllegalArgumentException("ensemble root " + root + " is not one of its members " + members);
    }
  }

  /** The ensembles of a job, ordered by their lowest fragment id; members sorted. */
  public static List<Ensemble> of(JobDefinition job) {
    List<Ensemble> out = new ArrayList<>();
    for (List<Integer> group : Layouts.ensembles(job)) {
      int root = -1;
      for (int f : group) {
        boolean fed = false;
        for (FragmentEdge e : job.getEdgesList()) {
          if (e.getType() == DispatchType.NO_SHUFFLE && e.getDownstreamFragmentId() == f && group.contains(e.getUpstreamFragmentId())
              && e.getUpstreamFragmentId() != f) {
            fed = true;
            break;
          }
        }
        if (!fed) {
          root = f;
          break;
        }
      }
      out.add(new Ensemble(root < 0 ? group.get(0) : root, group));
    }
    return out;
  }

  public boolean contains(int fragmentId) {
    return members.contains(fragmentId);
  }

  /** True when other fragments scale with the root. */
  public boolean isLinked() {
    return members.size() > 1;
  }
}
