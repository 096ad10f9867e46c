package dev.tide.stream.state;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.codec.KeyDecoder;
import dev.tide.common.codec.KeyEncoder;
import dev.tide.common.codec.ValueCodec;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import dev.tide.storage.StateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The changelog of a materialized view, kept in the state store next to the view so that jobs of
 * other views can follow it ({@code dev.tide.stream.source.ViewBackfillOp}) without any link
 * between the jobs' actors: they meet only in committed state.
 *
 * <h2>Layout</h2>
 *
 * Key {@code table_id | vnode | epoch | seq | op}, where {@code vnode} is the vnode of the view's
 * row (so one vnode's changes are one key range, in order), {@code epoch} the epoch the view
 * applied the change in, {@code seq} its order in the actor's epoch (one actor owns a vnode in an
 * epoch) and {@code op} insert (0) or delete (1); value: the row ({@link ValueCodec}). Update pairs
 * are written as a delete and an insert.
 *
 * <h2>Retention</h2>
 *
 * Every {@link #TRIM_EVERY_BARRIERS} barriers the writer deletes the entries of its vnodes older
 * than {@link #RETENTION_EPOCHS} epochs and writes a floor marker {@code (vnode, epoch 0, seq =
 * floor)}: entries of epochs at or above the floor are complete. A reader that needs older ones
 * (a follower paused for longer than the retention) fails instead of missing changes.
 *
 * <p>Thread-safety: the writer is confined to its actor's thread; the static readers are pure.
 */
public final class Changelog {
  /** Epochs of changes kept (one hour at the default barrier interval of one second). */
  public static final long RETENTION_EPOCHS = 3600;
  static final int TRIM_EVERY_BARRIERS = 64;
  private static final byte[] MARKER_VALUE = {1};

  private final int tableId;
  private final StateStore store;
  private final long retentionEpochs;
  private final int trimEveryBarriers;
  private final boolean singleVnode;
  private final Memtable memtable;
  private final KeyEncoder enc = new KeyEncoder();
  private VnodeBitmap vnodes;
  private long epoch;
  private long seq;
  private int barriers;
  private byte[] scratch = new byte[64];

  /**
   * @param vnodeCount the view table's vnode count (1 when it has no distribution key)
   * @param vnodes the vnodes the actor owns
   */
  public Changelog(int tableId, StateStore store, int vnodeCount, VnodeBitmap vnodes) {
    this(tableId, store, vnodeCount, vnodes, RETENTION_EPOCHS, TRIM_EVERY_BARRIERS);
  }

  /** A changelog that keeps {@code retentionEpochs} epochs and trims every {@code trimEveryBarriers} barriers. */
  public Changelog(int tableId, StateStore store, int vnodeCount, VnodeBitmap vnodes, long retentionEpochs, int trimEveryBarriers) {
    this.retentionEpochs = retentionEpochs;
    this.trimEveryBarriers = trimEveryBarriers;
    this.tableId = tableId;
    this.store = store;
    this.singleVnode = vnodeCount == 1;
    this.memtable = new Memtable(vnodeCount);
    this.vnodes = vnodes;
  }

  /** Appends row {@code row} of {@code chunk}, in view vnode {@code vnode}, to the current epoch. */
  public void append(StreamChunk chunk, int row, int vnode) {
    if (epoch == 0) {
      throw new IllegalStateException("changelog of table " + tableId + ": a row arrived before the actor's first barrier");
    }
    enc.startStateKey(tableId, vnode).putLong(epoch).putLong(seq++).putInt(Op.normalize(chunk.op(row)));
    Column[] columns = chunk.columns();
    int n = ValueCodec.encodedLength(columns, row);
    if (scratch.length < n) {
      scratch = new byte[Math.max(n, scratch.length * 2)];
    }
    ValueCodec.encode(columns, row, scratch);
    memtable.put(enc.buffer(), enc.length(), KeyHash.of(enc.buffer(), enc.length()), scratch, n);
  }

  /** Seals the writes of the barrier's previous epoch, trims old entries now and then, and starts the next epoch. */
  public void onBarrier(long prevEpoch, long currEpoch) {
    if (++barriers % trimEveryBarriers == 0 && currEpoch > retentionEpochs + 1) {
      trim(currEpoch - retentionEpochs);
    }
    if (!memtable.isEmpty()) {
      store.ingest(prevEpoch, memtable.drain());
    }
    epoch = currEpoch;
    seq = 0;
  }

  /** Changes the owned vnodes (a reschedule, after {@link #onBarrier}). */
  public void updateVnodes(VnodeBitmap newVnodes) {
    vnodes = newVnodes;
  }

  /** Deletes the entries of epochs below {@code floor} (and the old marker) of the owned vnodes; writes the new marker. */
  private void trim(long floor) {
    for (int v : singleVnode ? new int[] {0} : vnodes.toArray()) {
      byte[] from = new KeyEncoder().startStateKey(tableId, v).toByteArray();
      byte[] to = new KeyEncoder().startStateKey(tableId, v).putLong(floor).toByteArray();
      try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
        while (it.hasNext()) {
          byte[] k = it.next().key();
          memtable.put(k, k.length, KeyHash.of(k, k.length), Memtable.TOMBSTONE, 0);
        }
      }
      byte[] marker = new KeyEncoder().startStateKey(tableId, v).putLong(0).putLong(floor).toByteArray();
      memtable.put(marker, marker.length, KeyHash.of(marker, marker.length), MARKER_VALUE, 1);
    }
  }

  // ---- reading ----

  /** One change of a view: insert or delete of {@code row}. */
  public record Change(boolean insert, Object[] row) {}

  /**
   * The lowest epoch from which {@code vnode}'s changes are complete in {@code read} (1 if none was ever trimmed).
   */
  public static long floor(StateStore.CommittedRead read, int tableId, int vnode) {
    byte[] from = new KeyEncoder().startStateKey(tableId, vnode).putLong(0).toByteArray();
    byte[] to = new KeyEncoder().startStateKey(tableId, vnode).putLong(1).toByteArray();
    Optional<KeyValue> last = read.last(from, to);
    if (last.isEmpty()) {
      return 1;
    }
    KeyDecoder d = new KeyDecoder(last.get().key(), 6);
    d.read(DataType.BIGINT);
    return (Long) d.read(DataType.BIGINT);
  }

  /** The entries of {@code vnode}'s changes in epochs {@code (afterEpoch, uptoEpoch]}, in order ({@link #change} decodes one); close it. */
  public static CloseableIterator<KeyValue> scanChanges(StateStore.CommittedRead read, int tableId, int vnode, long afterEpoch,
      long uptoEpoch) {
    byte[] from = new KeyEncoder().startStateKey(tableId, vnode).putLong(afterEpoch + 1).toByteArray();
    byte[] to = new KeyEncoder().startStateKey(tableId, vnode).putLong(uptoEpoch + 1).toByteArray();
    return read.scan(from, to);
  }

  /** The change an entry of {@link #scanChanges} holds. */
  public static Change change(KeyValue kv, DataType[] types) {
    KeyDecoder d = new KeyDecoder(kv.key(), 6);
    d.read(DataType.BIGINT);
    d.read(DataType.BIGINT);
    int op = (Integer) d.read(DataType.INT);
    return new Change(op == 0, ValueCodec.decode(types, kv.value()));
  }

  /** {@link #scanChanges} read whole. */
  public static List<Change> read(StateStore.CommittedRead read, int tableId, int vnode, long afterEpoch, long uptoEpoch,
      DataType[] types) {
    List<Change> out = new ArrayList<>();
    try (CloseableIterator<KeyValue> it = scanChanges(read, tableId, vnode, afterEpoch, uptoEpoch)) {
      while (it.hasNext()) {
        out.add(change(it.next(), types));
      }
    }
    return out;
  }

  /** The entries of a table's {@code vnode} in {@code read}, in key order (values are rows); close it. */
  public static CloseableIterator<KeyValue> scanRows(StateStore.CommittedRead read, int tableId, int vnode) {
    byte[] from = new KeyEncoder().startStateKey(tableId, vnode).toByteArray();
    byte[] to = vnode == 0xFFFF ? new KeyEncoder().startStateKey(tableId + 1, 0).toByteArray()
        : new KeyEncoder().startStateKey(tableId, vnode + 1).toByteArray();
    return read.scan(from, to);
  }
}
