package dev.tide.meta.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The actors of every fragment of a job, in index order (actor i of a NO_SHUFFLE pair matches actor i). */
public record JobLayout(TreeMap<Integer, List<ActorPlacement>> fragments) {
  public JobLayout {
    TreeMap<Integer, List<ActorPlacement>> copy = new TreeMap<>();
    fragments.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    fragments = copy;
  }

  public List<ActorPlacement> actors(int fragmentId) {
    List<ActorPlacement> a = fragments.get(fragmentId);
    if (a == null) {
      throw new IllegalArgumentException("no fragment " + fragmentId + " in layout; fragments: " + fragments.keySet());
    }
    return a;
  }

  public List<ActorPlacement> allActors() {
    List<ActorPlacement> out = new ArrayList<>();
    fragments.values().forEach(out::addAll);
    return out;
  }

  /** Actor count per worker. */
  public Map<Integer, Integer> actorsPerWorker() {
    Map<Integer, Integer> out = new TreeMap<>();
    for (ActorPlacement a : allActors()) {
      out.merge(a.workerId(), 1, Integer::sum);
    }
    return out;
  }
}
