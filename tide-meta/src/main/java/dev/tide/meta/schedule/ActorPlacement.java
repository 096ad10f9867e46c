package dev.tide.meta.schedule;

import dev.tide.common.hash.VnodeBitmap;
import java.util.List;

/** Where one actor runs and what it owns: its vnodes (hash fragments) or splits (source fragments). */
public record ActorPlacement(long actorId, int workerId, VnodeBitmap vnodes, List<Integer> splits) {
  public ActorPlacement {
    splits = List.copyOf(splits);
  }

  public ActorPlacement onWorker(int newWorker) {
    return new ActorPlacement(actorId, newWorker, vnodes, splits);
  }
}
