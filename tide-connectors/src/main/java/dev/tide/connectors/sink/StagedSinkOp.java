package dev.tide.connectors.sink;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.RowFormat;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

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
 * <p>Rows are published one barrier interval after their epoch at the earliest (the commit
 * notification arrives with the next barrier). Thread-safety: confined to the actor thread.
 */
public final class StagedSinkOp implements Operator {
  private final Schema schema;
  private final int[] key;
  private final int[] all;
  private final int stateTableId;
  private final ActorContext ctx;
  private final Supplier<Publisher> publisherFactory;
  private final List<Publisher.StagedRow> buffer = new ArrayList<>();
  /** Staged, unpublished epochs of this actor, ascending; rows in order. */
  private final TreeMap<Long, List<Publisher.StagedRow>> staged = new TreeMap<>();
  private StateTable state;
  private Publisher publisher;
  private long published = -1;
  /** The last epoch of an actor a reschedule removes (set at its stop barrier), else -1. */
  private long finalEpoch = -1;

  public StagedSinkOp(Schema schema, int[] key, int stateTableId, ActorContext ctx, Supplier<Publisher> publisher) {
    this.schema = schema;
    this.key = key;
    this.all = new int[schema.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    this.stateTableId = stateTableId;
    this.ctx = ctx;
    this.publisherFactory = publisher;
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
    if (publisher == null) {
      recover();
    }
    long epoch = barrier.prevEpoch();
    if (!buffer.isEmpty()) {
      for (int seq = 0; seq < buffer.size(); seq++) {
        Publisher.StagedRow r = buffer.get(seq);
        state.put(new Object[] {ctx.actorId(), epoch, seq, (int) r.op(), r.key(), r.value()});
      }
      staged.put(epoch, List.copyOf(buffer));
      buffer.clear();
    }
    publishCommitted(ctx.store().committedEpoch());
    state.commit(epoch);
    if (barrier.stops(ctx.actorId())) {
      finalEpoch = epoch;
    }
  }

  private void recover() {
    publisher = publisherFactory.get();
    published = publisher.recover();
    for (Object[] r : state.scanPrefix(new Object[] {ctx.actorId()})) {
      long e = (Long) r[1];
      if (e <= published) {
        state.deleteByPk(new Object[] {r[0], r[1], r[2]});
      } else {
        staged.computeIfAbsent(e, x -> new ArrayList<>())
            .add(new Publisher.StagedRow((byte) (int) (Integer) r[3], (String) r[4], (String) r[5]));
      }
    }
  }

  private void publishCommitted(long committed) {
    Map<Long, List<Publisher.StagedRow>> ready = staged.headMap(committed, true);
    if (ready.isEmpty()) {
      return;
    }
    List<Publisher.StagedRow> rows = new ArrayList<>();
    ready.values().forEach(rows::addAll);
    long upTo = staged.floorKey(committed);
    publisher.publish(rows, upTo);
    published = upTo;
    ready.forEach((e, list) -> {
      for (int seq = 0; seq < list.size(); seq++) {
        state.deleteByPk(new Object[] {ctx.actorId(), e, seq});
      }
    });
    ready.clear();
  }

  /** Rows staged and not yet published (for metrics and tests). */
  public int stagedRows() {
    return staged.values().stream().mapToInt(List::size).sum();
  }

  /**
   * An actor a reschedule removes publishes what it staged once its last epoch commits: it waits
   * for that here, after its stop barrier was passed on (so the wait holds no barrier back), for at
   * most {@link #FINAL_PUBLISH_WAIT_NANOS}. If the epoch does not commit (a recovery follows and
   * rebuilds this actor with its staged rows) or the wait is interrupted, it publishes nothing.
   */
  @Override
  public void close() {
    try {
      if (finalEpoch >= 0 && publisher != null) {
        long deadline = ctx.clock().nanoTime() + FINAL_PUBLISH_WAIT_NANOS;
        while (ctx.store().committedEpoch() < finalEpoch && ctx.clock().nanoTime() < deadline) {
          Thread.sleep(5); // the store offers no timed wait; a short poll on the closing path only
        }
        if (ctx.store().committedEpoch() >= finalEpoch) {
          publishCommitted(finalEpoch);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (publisher != null) {
        publisher.close();
      }
    }
  }

  /** How long a removed actor waits for its last epoch to commit before giving up publishing. */
  static final long FINAL_PUBLISH_WAIT_NANOS = 60_000_000_000L;
}
