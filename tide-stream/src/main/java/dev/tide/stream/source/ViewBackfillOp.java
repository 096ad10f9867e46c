package dev.tide.stream.source;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.plan.UpstreamView;
import dev.tide.storage.StateStore;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.SourceOperator;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.plan.Types;
import dev.tide.stream.state.Changelog;
import dev.tide.stream.state.StateTable;
import dev.tide.common.codec.ValueCodec;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import java.util.List;

/**
 * A source that follows the materialized view of another job (connector {@value #CONNECTOR}):
 * backfill from the view's committed rows, then its committed changes, consistent across the
 * switch and exactly once. The two jobs share no channel and no barrier; they meet in committed
 * state only, which every node can read ({@link StateStore#committedRead()}).
 *
 * <h2>Splits and offsets</h2>
 *
 * The source's splits are the upstream view's vnodes; the offset of a split is the upstream epoch
 * its rows have been read up to, kept in the source's state table like any source's offsets (0:
 * nothing read yet). Per split:
 *
 * <ol>
 *   <li><b>Snapshot</b> (offset 0): the vnode's rows in the installed committed version are emitted
 *       as inserts, and the offset becomes that version's committed epoch {@code S}: the rows are
 *       the view as of {@code S}.
 *   <li><b>Changes</b>: at each barrier, meta's committed epoch {@code C} at injection ({@link
 *       Barrier#committedEpoch()}) becomes the target; once this node installed a version of epoch
 *       {@code >= C}, the vnode's changelog entries of epochs {@code (offset, C]} ({@link Changelog})
 *       are emitted in order and the offset becomes {@code C}.
 * </ol>
 *
 * Nothing is lost or counted twice across the switch: the snapshot holds exactly the changes of
 * epochs {@code <= S} and the changelog is read from {@code S + 1}. A split's offset advances only
 * with the rows it covers, in the same epoch of this job (a split's read under way is finished at
 * the barrier, before the offsets are saved; rows stream out a chunk at a time, so a vnode's
 * snapshot is never held whole), so recovery replays exactly the uncommitted suffix. A
 * reschedule of this job moves splits with their offsets, as for any source; a reschedule of the
 * upstream job changes nothing here, as its state is keyed by vnode whichever actor wrote it. While
 * this job is paused it reads nothing and catches up on resume; while the upstream is paused its
 * changelog is silent.
 *
 * <p>All splits of all such sources read up to the same {@code C} in the epoch a barrier starts,
 * so a view over several views (or joining one with itself) sees them at one epoch, except right
 * after a snapshot (its {@code S} may be ahead; the split then waits until {@code C} passes it).
 *
 * <p>Thread-safety: confined to the actor thread.
 */
public final class ViewBackfillOp implements SourceOperator {
  public static final String CONNECTOR = "view";

  private final UpstreamView upstream;
  private final DataType[] tableTypes;
  private final int[] columns;
  private final int stateTableId;
  private final ActorContext ctx;
  private final ChunkBuilder builder;
  private int[] splits;
  private long[] offsets;
  private long[] stored;
  private StateTable state;
  private boolean started;
  private boolean paused;
  private long target;
  private int cursor;
  /** The read of one split under way (null: none), whether it is a snapshot, its split and the offset it reaches. */
  private CloseableIterator<KeyValue> reading;
  private boolean snapshot;
  private int readingSplit;
  private long readingTo;

  public ViewBackfillOp(SourceNode node, ActorContext ctx) {
    this.upstream = node.getUpstream();
    this.tableTypes = Types.types(upstream.getTable().getColumnsList());
    this.columns = node.getColumnsCount() == 0 ? java.util.stream.IntStream.range(0, tableTypes.length).toArray()
        : node.getColumnsList().stream().mapToInt(Integer::intValue).toArray();
    DataType[] out = new DataType[columns.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = tableTypes[columns[i]];
    }
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
    this.stateTableId = node.getStateTableId();
    this.ctx = ctx;
  }

  @Override
  public void open() {
    state = ctx.table(stateTableId);
    paused = ctx.startsPaused();
    updateSplits(ctx.splits());
  }

  @Override
  public void updateSplits(List<Integer> newSplits) {
    splits = newSplits.stream().mapToInt(Integer::intValue).toArray();
    offsets = null;
    cursor = 0; // no read is under way: onBarrier finished it
  }

  private void ensureLoaded() {
    if (offsets != null) {
      return;
    }
    offsets = new long[splits.length];
    for (int i = 0; i < splits.length; i++) {
      Object[] row = state.get(new Object[] {splits[i]});
      offsets[i] = row == null ? 0 : (Long) row[1];
    }
    stored = offsets.clone();
  }

  @Override
  public StreamChunk next(long nowNanos) {
    if (!started || paused || splits.length == 0) {
      return null;
    }
    if (reading != null) {
      return readChunk();
    }
    ensureLoaded();
    StateStore store = ctx.store();
    if (store.committedEpoch() < target) {
      return null; // this node has not installed the version of the target epoch yet
    }
    while (cursor < splits.length) {
      int i = cursor++;
      if (offsets[i] != 0 && offsets[i] >= target) {
        continue;
      }
      StateStore.CommittedRead read = store.committedRead();
      snapshot = offsets[i] == 0;
      if (snapshot) {
        readingTo = read.epoch();
        reading = Changelog.scanRows(read, upstream.getTable().getTableId(), splits[i]);
      } else {
        long floor = Changelog.floor(read, upstream.getChangelogTableId(), splits[i]);
        if (floor > offsets[i] + 1) {
          throw new IllegalStateException("source of view '" + upstream.getTable().getName() + "' (vnode " + splits[i]
              + ") fell behind its changelog: it read up to epoch " + offsets[i] + " but changes are kept from epoch " + floor
              + " (" + Changelog.RETENTION_EPOCHS + " epochs); recreate the view that reads it");
        }
        readingTo = target;
        reading = Changelog.scanChanges(read, upstream.getChangelogTableId(), splits[i], offsets[i], target);
      }
      readingSplit = i;
      StreamChunk c = readChunk();
      if (c != null) {
        return c;
      }
    }
    return null;
  }

  /**
   * The next chunk of the split being read, or null when it had no more rows; once its last row is
   * taken the split's offset advances and the read ends.
   */
  private StreamChunk readChunk() {
    while (reading.hasNext()) {
      KeyValue kv = reading.next();
      Object[] row;
      byte op;
      if (snapshot) {
        row = ValueCodec.decode(tableTypes, kv.value());
        op = Op.INSERT.code();
      } else {
        Changelog.Change c = Changelog.change(kv, tableTypes);
        row = c.row();
        op = c.insert() ? Op.INSERT.code() : Op.DELETE.code();
      }
      Object[] out = new Object[columns.length];
      for (int c = 0; c < columns.length; c++) {
        out[c] = row[columns[c]];
      }
      StreamChunk full = builder.appendRow(op, out);
      if (full != null) {
        return full;
      }
    }
    reading.close();
    reading = null;
    offsets[readingSplit] = readingTo;
    return builder.take();
  }

  @Override
  public long nanosUntilReady(long nowNanos) {
    if (!started || paused || splits.length == 0) {
      return Long.MAX_VALUE;
    }
    if (reading != null || offsets == null) {
      return 0;
    }
    if (cursor < splits.length) {
      return ctx.store().committedEpoch() < target ? 1_000_000L : 0;
    }
    return Long.MAX_VALUE;
  }

  @Override
  public void close() {
    if (reading != null) {
      reading.close(); // unpins the version it reads
      reading = null;
    }
  }

  @Override
  public boolean ended() {
    return false; // a view never ends
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    while (reading != null) { // a split's rows and its new offset belong to one epoch
      StreamChunk c = readChunk();
      if (c != null) {
        out.emit(c);
      }
    }
    started = true;
    paused = barrier.pausedAfter(ctx.jobId(), paused);
    if (offsets != null) {
      for (int i = 0; i < splits.length; i++) {
        if (offsets[i] != stored[i]) {
          state.put(new Object[] {splits[i], offsets[i]});
          stored[i] = offsets[i];
        }
      }
    }
    state.commit(barrier.prevEpoch());
    target = barrier.committedEpoch();
    cursor = 0;
  }
}
