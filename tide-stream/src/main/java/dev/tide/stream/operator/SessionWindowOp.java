package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.SessionWindowNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Session windows ({@link SessionWindowNode}) over an append-only input. Per partition, the rows
 * sorted by time and the current sessions (start → last time) are held in memory, loaded from the
 * state table (which holds every row, keyed partition, time, stream key) the first time a row of the
 * partition arrives. A new row at time t joins every row whose time is less than the gap from t or
 * from a row already joined: that run of times is the row's new session, and the rows of the
 * sessions it replaces whose window changed are updated (update pairs), then the new row is
 * inserted. Sessions are never closed (no watermark ends them), so state keeps every row.
 *
 * <p>Cache: loaded partitions, cleared at a barrier once past its bound and when the actor's vnodes
 * change. Thread-safety: confined to the actor thread.
 */
public final class SessionWindowOp implements Operator {
  private static final int MAX_CACHED_ROWS = 500_000;

  private final SessionWindowNode node;
  private final int[] partitionKeys;
  private final int timeColumn;
  private final long gap;
  private final int width;
  private final ActorContext ctx;
  private final Map<List<Object>, Partition> partitions = new HashMap<>();
  private final ChunkBuilder builder;
  private long cachedRows;
  private StateTable table;

  /** One partition: its rows by time, and its sessions as first time → last time. */
  private static final class Partition {
    final NavigableMap<Long, List<Object[]>> rows = new TreeMap<>();
    final NavigableMap<Long, Long> sessions = new TreeMap<>();
  }

  public SessionWindowOp(SessionWindowNode node, DataType[] inputTypes, ActorContext ctx) {
    this.node = node;
    this.partitionKeys = node.getPartitionKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.timeColumn = node.getTimeColumn();
    this.gap = node.getGapMs();
    this.width = inputTypes.length;
    this.ctx = ctx;
    DataType[] out = Arrays.copyOf(inputTypes, width + 2);
    out[width] = DataType.TIMESTAMP;
    out[width + 1] = DataType.TIMESTAMP;
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
  }

  @Override
  public void open() {
    table = ctx.table(node.getTableId());
    table.filterKeys(partitionKeys.length);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      if (!Op.isInsert(chunk.op(i))) {
        throw new IllegalStateException("session window over an append-only input received a " + Op.of(chunk.op(i))
            + ": the plan's append-only derivation is wrong for this input");
      }
      Object[] row = chunk.row(i);
      if (row[timeColumn] == null) {
        continue; // no time, no session
      }
      insert(partition(row), row, out);
    }
    out.emitIfAny(builder.take());
  }

  private void insert(Partition p, Object[] row, Emitter out) throws InterruptedException {
    long t = (Long) row[timeColumn];
    table.put(row);
    cachedRows++;
    // The new session: the run of times less than the gap apart through t.
    long first = t;
    long last = t;
    for (Long prev = p.rows.lowerKey(first); prev != null && first - prev < gap; prev = p.rows.lowerKey(first)) {
      first = prev;
    }
    for (Long next = p.rows.higherKey(last); next != null && next - last < gap; next = p.rows.higherKey(last)) {
      last = next;
    }
    // The sessions it replaces lie within [first, last]; their rows whose window changes are updated.
    Map<Long, Long> replaced = new TreeMap<>(p.sessions.subMap(first, true, last, true));
    for (Map.Entry<Long, Long> s : replaced.entrySet()) {
      p.sessions.remove(s.getKey());
      if (s.getKey() == first && s.getValue() == last) {
        continue; // t fell inside an unchanged session
      }
      for (List<Object[]> rows : p.rows.subMap(s.getKey(), true, s.getValue(), true).values()) {
        for (Object[] r : rows) {
          if (builder.size() >= StreamChunk.DEFAULT_CAPACITY - 1) {
            out.emitIfAny(builder.take()); // an update pair stays in one chunk
          }
          out.emitIfAny(builder.appendRow(Op.UPDATE_DELETE.code(), windowed(r, s.getKey(), s.getValue())));
          out.emitIfAny(builder.appendRow(Op.UPDATE_INSERT.code(), windowed(r, first, last)));
        }
      }
    }
    p.sessions.put(first, last);
    p.rows.computeIfAbsent(t, k -> new ArrayList<>(1)).add(row);
    out.emitIfAny(builder.appendRow(Op.INSERT.code(), windowed(row, first, last)));
  }

  private Object[] windowed(Object[] row, long first, long last) {
    Object[] r = Arrays.copyOf(row, width + 2);
    r[width] = first;
    r[width + 1] = last + gap;
    return r;
  }

  private Partition partition(Object[] row) {
    Object[] key = new Object[partitionKeys.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = HashAggOp.normalizeZero(row[partitionKeys[k]]);
    }
    List<Object> k = Arrays.asList(key);
    Partition p = partitions.get(k);
    if (p == null) {
      p = new Partition();
      Long first = null;
      Long last = null;
      for (Object[] stored : table.scanPrefix(key)) { // in time order: the time follows the keys in the pk
        long t = (Long) stored[timeColumn];
        p.rows.computeIfAbsent(t, x -> new ArrayList<>(1)).add(stored);
        if (last != null && t - last >= gap) {
          p.sessions.put(first, last);
          first = null;
        }
        if (first == null) {
          first = t;
        }
        last = t;
        cachedRows++;
      }
      if (first != null) {
        p.sessions.put(first, last);
      }
      partitions.put(k, p);
    }
    return p;
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    table.commit(barrier.prevEpoch());
    if (cachedRows > MAX_CACHED_ROWS) {
      partitions.clear();
      cachedRows = 0;
    }
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
    partitions.clear(); // partitions of lost vnodes go; those of regained ones may be stale
    cachedRows = 0;
  }
}
