package dev.tide.connectors.sink;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.RowFormat;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * An exactly-once external sink in two phases. Pre-commit: at the barrier that ends epoch {@code e},
 * the epoch's changes are staged in the sink's state table (rows {@code (actor, e, seq, op, key,
 * value)}), so they commit with {@code e}. Commit: at a later barrier that finds {@code e}
 * committed, the staged epochs are handed to the {@link Publisher}, which applies them and records
 * the last one in the target system in one transaction; then they are deleted from state.
 *
 * <p>Recovery: the actor keeps its id, so it reads its staged epochs back and asks the publisher
 * (which fences the crashed instance) for the last epoch recorded; staged epochs up to it were
 * published before the crash and are dropped, the others are published. A crash between the
 * target's commit and the deletion's commit therefore writes nothing twice, and a crash before
 * the epoch commits leaves nothing outside (the epoch is replayed).
 *
 * <p>Hand-over. The staging table is one for the fragment, not split by vnode, so every actor sees
 * what every other staged. An actor a reschedule removes publishes nothing after its stop barrier:
 * its last epochs stay staged under its id, and the lowest actor of the fragment adopts them (an
 * <em>orphan</em> is a stager no longer in the fragment): it publishes them as that actor, through
 * a publisher of the orphan's identity that fences it and reads what it recorded, so a crash on
 * either side writes nothing twice and loses nothing. A key a reschedule moves changes stagers, so
 * after a reschedule (and after recovery, which may follow one) each actor is in a hand-over window:
 * it publishes an epoch only when no other stager still holds rows of an earlier epoch, which keeps
 * every key's changes in epoch order in the target. The window closes once no other stager holds
 * rows of the epochs up to the one that opened it.
 *
 * <p>Rows are published one barrier interval after their epoch at the earliest (the commit
 * notification arrives with the next barrier). Thread-safety: confined to the actor thread.
 */
public final class StagedSinkOp implements Operator {
  private final Schema schema;
  private final int[] key;
  private final int[] all;
  private final int stateTableId;
  private final ActorContext ctx;
  private final LongFunction<Publisher> publishers;
  private final List<Publisher.StagedRow> buffer = new ArrayList<>();
  /** Staged, unpublished epochs of this actor, ascending; rows in order. */
  private final TreeMap<Long, List<Publisher.StagedRow>> staged = new TreeMap<>();
  /** The actors of the fragment, ascending (empty: not known, then nothing is adopted). */
  private TreeSet<Long> peers;
  private StateTable state;
  private Publisher publisher;
  /** While a hand-over window is open, the epoch that opened it; else -1. */
  private long handOver = -1;

  /**
   * @param publishers the publisher of a stager's identity, by actor id: this actor's own, and those
   *     of the orphans it adopts
   */
  public StagedSinkOp(Schema schema, int[] key, int stateTableId, ActorContext ctx, LongFunction<Publisher> publishers) {
    this.schema = schema;
    this.key = key;
    this.all = new int[schema.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    this.stateTableId = stateTableId;
    this.ctx = ctx;
    this.publishers = publishers;
    this.peers = new TreeSet<>(ctx.fragmentActors());
  }

  @Override
  public void open() {
    state = ctx.table(stateTableId);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) {
    for (int i = 0; i < chunk.size(); i++) {
      if (chunk.visible(i)) {
        Object[] r = chunk.row(i);
        buffer.add(new Publisher.StagedRow(chunk.op(i), RowFormat.encodeJson(r, schema, key), RowFormat.encodeJson(r, schema, all)));
      }
    }
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    long epoch = barrier.prevEpoch();
    if (publisher == null) {
      recover();
      handOver = epoch; // built by a recovery or a reschedule: either may have moved keys between stagers
    }
    if (barrier.mutation() != null && barrier.mutation().hasUpdate() && barrier.mutation().getUpdate().getJobId() == ctx.jobId()) {
      ActorInfo mine = barrier.updateFor(ctx.actorId());
      if (mine != null && mine.getFragmentActorIdsCount() > 0) {
        peers = new TreeSet<>(mine.getFragmentActorIdsList());
      }
      handOver = epoch;
    }
    if (!buffer.isEmpty()) {
      for (int seq = 0; seq < buffer.size(); seq++) {
        Publisher.StagedRow r = buffer.get(seq);
        state.put(new Object[] {ctx.actorId(), epoch, seq, (int) r.op(), r.key(), r.value()});
      }
      staged.put(epoch, List.copyOf(buffer));
      buffer.clear();
    }
    long committed = ctx.store().committedEpoch();
    publish(publisher, ctx.actorId(), staged, handOver < 0 ? committed : handOverStep(committed));
    state.commit(epoch);
  }

  private void recover() {
    publisher = publishers.apply(ctx.actorId());
    long published = publisher.recover();
    for (Object[] r : state.scanPrefix(new Object[] {ctx.actorId()})) {
      long e = (Long) r[1];
      if (e <= published) {
        state.deleteByPk(new Object[] {r[0], r[1], r[2]});
      } else {
        staged.computeIfAbsent(e, x -> new ArrayList<>()).add(row(r));
      }
    }
  }

  private static Publisher.StagedRow row(Object[] r) {
    return new Publisher.StagedRow((byte) (int) (Integer) r[3], (String) r[4], (String) r[5]);
  }

  /**
   * One step of an open hand-over window: adopts what orphans may publish (this actor is the
   * fragment's lowest), closes the window once no other stager holds an epoch up to the one that
   * opened it, and returns the last epoch of its own this actor may publish now.
   */
  private long handOverStep(long committed) {
    TreeMap<Long, TreeMap<Long, List<Publisher.StagedRow>>> others = new TreeMap<>();
    for (Object[] r : state.scanOwned()) {
      long stager = (Long) r[0];
      if (stager != ctx.actorId()) {
        others.computeIfAbsent(stager, s -> new TreeMap<>()).computeIfAbsent((Long) r[1], e -> new ArrayList<>()).add(row(r));
      }
    }
    // A stager that left did so at the barrier ending handOver: once that epoch committed it has
    // passed its stop barrier (or died) and will publish nothing more itself.
    if (committed >= handOver && !peers.isEmpty() && peers.first() == ctx.actorId()) {
      for (long orphan : new ArrayList<>(others.keySet())) {
        if (!peers.contains(orphan)) {
          adopt(orphan, others, committed);
        }
      }
    }
    long oldestOther = Long.MAX_VALUE;
    for (TreeMap<Long, List<Publisher.StagedRow>> epochs : others.values()) {
      oldestOther = Math.min(oldestOther, epochs.firstKey());
    }
    if (committed >= handOver && oldestOther > handOver) {
      handOver = -1;
      return committed;
    }
    return Math.min(committed, oldestOther);
  }

  /** Publishes, as {@code orphan}, its epochs no other stager precedes, and deletes them from state. */
  private void adopt(long orphan, TreeMap<Long, TreeMap<Long, List<Publisher.StagedRow>>> others, long committed) {
    TreeMap<Long, List<Publisher.StagedRow>> epochs = others.get(orphan);
    long limit = staged.isEmpty() ? committed : Math.min(committed, staged.firstKey());
    for (Map.Entry<Long, TreeMap<Long, List<Publisher.StagedRow>>> o : others.entrySet()) {
      if (o.getKey() != orphan) {
        limit = Math.min(limit, o.getValue().firstKey());
      }
    }
    if (epochs.firstKey() > limit) {
      return;
    }
    NavigableMap<Long, List<Publisher.StagedRow>> ready = epochs.headMap(limit, true);
    try (Publisher as = publishers.apply(orphan)) {
      long published = as.recover();
      List<Publisher.StagedRow> rows = new ArrayList<>();
      ready.tailMap(published, false).values().forEach(rows::addAll);
      if (ready.lastKey() > published) {
        as.publish(rows, ready.lastKey());
      }
    }
    deleteStaged(orphan, ready);
    if (epochs.isEmpty()) {
      others.remove(orphan);
    }
  }

  /** Publishes {@code stager}'s epochs up to {@code upTo} and deletes them from {@code epochs} and from state. */
  private void publish(Publisher to, long stager, TreeMap<Long, List<Publisher.StagedRow>> epochs, long upTo) {
    NavigableMap<Long, List<Publisher.StagedRow>> ready = epochs.headMap(upTo, true);
    if (ready.isEmpty()) {
      return;
    }
    List<Publisher.StagedRow> rows = new ArrayList<>();
    ready.values().forEach(rows::addAll);
    to.publish(rows, ready.lastKey());
    deleteStaged(stager, ready);
  }

  private void deleteStaged(long stager, NavigableMap<Long, List<Publisher.StagedRow>> epochs) {
    epochs.forEach((e, list) -> {
      for (int seq = 0; seq < list.size(); seq++) {
        state.deleteByPk(new Object[] {stager, e, seq});
      }
    });
    epochs.clear();
  }

  /**
   * The name under which a sink actor publishes, {@code tide-<job>-<table>-<actor>}: stable across
   * recoveries (actors keep their ids), and the one an adopter of its orphaned epochs publishes as.
   */
  public static String identity(int jobId, int stateTableId, long actorId) {
    return "tide-" + jobId + "-" + stateTableId + "-" + actorId;
  }

  /** Rows staged and not yet published (for metrics and tests). */
  public int stagedRows() {
    return staged.values().stream().mapToInt(List::size).sum();
  }

  /** Whether a hand-over window is open (for tests). */
  boolean handingOver() {
    return handOver >= 0;
  }

  /**
   * Publishes nothing: an actor a reschedule removes leaves its last epochs staged for the
   * fragment's lowest actor to adopt once they commit (and a failed one is rebuilt by the recovery).
   */
  @Override
  public void close() {
    if (publisher != null) {
      publisher.close();
    }
  }
}
