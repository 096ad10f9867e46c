package dev.tide.stream.operator;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.Clock;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.StateStore;
import dev.tide.stream.actor.SourceAlignment;
import dev.tide.stream.state.StateTable;
import java.util.List;
import java.util.Map;

/**
 * What an operator of one actor may use: its state tables (restricted to the actor's vnodes), its
 * source splits, the clock, whether its job was paused when the actor was built (a source then
 * starts paused: it emits nothing until a Resume barrier), and the wall time its job was created
 * (0: not known), from which rate-paced sources run their schedule, and the alignment its sources
 * share with the job's other sources on this node, and the actors of its fragment when it was built
 * (itself included; empty: not known), and the heap budget its key caches share with the other
 * operators' ({@link CacheBudget#jvm()} unless given). Thread-safety: confined to the actor thread.
 */
public record ActorContext(long actorId, int jobId, int vnodeCount, VnodeBitmap vnodes, List<Integer> splits,
    Map<Integer, TableCatalog> tables, StateStore store, Clock clock, boolean startsPaused, long jobCreatedMs,
    SourceAlignment alignment, List<Long> fragmentActors, CacheBudget cacheBudget) {

  /** A context whose caches share this JVM's budget. */
  public ActorContext(long actorId, int jobId, int vnodeCount, VnodeBitmap vnodes, List<Integer> splits,
      Map<Integer, TableCatalog> tables, StateStore store, Clock clock, boolean startsPaused, long jobCreatedMs,
      SourceAlignment alignment, List<Long> fragmentActors) {
    this(actorId, jobId, vnodeCount, vnodes, splits, tables, store, clock, startsPaused, jobCreatedMs, alignment, fragmentActors,
        CacheBudget.jvm());
  }

  /** A context that does not know the other actors of its fragment. */
  public ActorContext(long actorId, int jobId, int vnodeCount, VnodeBitmap vnodes, List<Integer> splits,
      Map<Integer, TableCatalog> tables, StateStore store, Clock clock, boolean startsPaused, long jobCreatedMs,
      SourceAlignment alignment) {
    this(actorId, jobId, vnodeCount, vnodes, splits, tables, store, clock, startsPaused, jobCreatedMs, alignment, List.of());
  }

  /** A context whose sources are aligned with no other actor's. */
  public ActorContext(long actorId, int jobId, int vnodeCount, VnodeBitmap vnodes, List<Integer> splits,
      Map<Integer, TableCatalog> tables, StateStore store, Clock clock, boolean startsPaused) {
    this(actorId, jobId, vnodeCount, vnodes, splits, tables, store, clock, startsPaused, 0, new SourceAlignment());
  }

  /** The context of an actor of a running (not paused) job. */
  public ActorContext(long actorId, int jobId, int vnodeCount, VnodeBitmap vnodes, List<Integer> splits,
      Map<Integer, TableCatalog> tables, StateStore store, Clock clock) {
    this(actorId, jobId, vnodeCount, vnodes, splits, tables, store, clock, false);
  }

  public StateTable table(int tableId) {
    TableCatalog t = tables.get(tableId);
    if (t == null) {
      throw new IllegalArgumentException("actor " + actorId + " has no state table " + tableId);
    }
    return new StateTable(t, store, vnodes, vnodeCount);
  }
}
