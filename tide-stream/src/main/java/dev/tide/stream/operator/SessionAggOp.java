package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.AggCall;
import dev.tide.proto.plan.AggKind;
import dev.tide.proto.plan.SessionAggNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * An aggregation over session windows ({@link SessionAggNode}): per partition, its open sessions,
 * each one running aggregate state (first and last time, row count, the calls' states), instead of
 * every row of a session and an aggregation of their windowed copies. Output and changelog are the
 * hash aggregation's over {@link SessionWindowOp}'s rows: at a barrier, per changed partition, the
 * rows emitted for its sessions before (those merged into others since included) are compared by
 * group key with its sessions' rows now: a key gone is deleted, a new one inserted, a changed one
 * updated.
 *
 * <p>A row at t joins the session that starts at or before t if t is less than the gap after its
 * last time, and the next session if that starts less than the gap after the new last time (at
 * most two: sessions are at least a gap apart); joining the next one merges the two, the earlier
 * survives. Sessions are keyed by their first time in state, written at barriers (a session opening
 * and closing within an epoch writes nothing); a session whose first time moves (a row before it, a
 * merge) has its old state row deleted at once.
 *
 * <p>Closing: a session whose last time + gap is at most the watermark on the time column can take
 * no later row, so it leaves state and memory (its output stays; a changed one is emitted first).
 * Sessions are found by an index of closing times, built at the first watermark after a start or a
 * vnode change from the owned state and the sessions not written yet; a session is indexed when it
 * gets a first time, and an entry come due for a session extended since is moved to its closing time
 * then (one entry per session, not one per row). A row below the watermark is late and dropped,
 * as {@link SessionWindowOp} drops it: it could belong to a closed session.
 *
 * <p>Cache: partitions by key ({@link KeyCache}, integer keys unboxed), aged at barriers once every
 * partition is clean; a partition whose sessions all closed stays cached, empty. Thread-safety:
 * confined to the actor thread.
 */
public final class SessionAggOp implements Operator {
  private final SessionAggNode node;
  private final int[] partitionKeys;
  private final int timeColumn;
  private final long gap;
  private final int[] groupColumns;
  private final AggCall[] calls;
  private final AggKind[] kinds;
  private final DataType[] argTypes;
  private final ActorContext ctx;
  private final boolean integerKeys;
  private final long[] probe;
  private final KeyCache<Partition> cache;
  private final ChunkBuilder builder;
  private final List<Partition> dirty = new ArrayList<>();
  private StateTable table;
  /** Closing time (last + gap) → sessions (partition key, first time) due then; null until the first watermark builds it. */
  private NavigableMap<Long, List<Due>> closing;
  private long closedBelow = Long.MIN_VALUE;

  private record Due(Object[] key, long first) {}

  /** One partition: its open sessions by first time, and rows emitted for sessions merged away since the last emission. */
  private static final class Partition {
    final Object[] key;
    final NavigableMap<Long, Session> sessions = new TreeMap<>();
    final List<Object[]> retracted = new ArrayList<>(0);
    boolean dirty;

    Partition(Object[] key) {
      this.key = key;
    }
  }

  /** One open session: its bounds, its running states per call, and what was emitted and stored for it. */
  private final class Session {
    long first;
    long last;
    long rows;
    final long[] counts = new long[calls.length];
    final long[] longSums = new long[calls.length];
    final double[] doubleSums = new double[calls.length];
    final Object[] extremes = new Object[calls.length];
    Object[] emitted; // the row last emitted for it, null if none
    boolean stored; // its state row is under (key, first)
    boolean changed; // since the last emission

    Session(long first, long last) {
      this.first = first;
      this.last = last;
    }
  }

  public SessionAggOp(SessionAggNode node, DataType[] inputTypes, ActorContext ctx) {
    this.node = node;
    this.ctx = ctx;
    this.partitionKeys = node.getPartitionKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.timeColumn = node.getTimeColumn();
    this.gap = node.getGapMs();
    this.groupColumns = node.getGroupColumnsList().stream().mapToInt(Integer::intValue).toArray();
    this.calls = node.getCallsList().toArray(new AggCall[0]);
    this.kinds = new AggKind[calls.length];
    this.argTypes = new DataType[calls.length];
    DataType[] out = new DataType[groupColumns.length + calls.length];
    for (int i = 0; i < groupColumns.length; i++) {
      out[i] = groupColumns[i] < partitionKeys.length ? inputTypes[partitionKeys[groupColumns[i]]] : DataType.TIMESTAMP;
    }
    for (int c = 0; c < calls.length; c++) {
      kinds[c] = calls[c].getKind();
      if (kinds[c] == AggKind.COUNT_DISTINCT) {
        throw new IllegalArgumentException("a session aggregation takes no COUNT(DISTINCT): the compiler fuses only calls that merge");
      }
      argTypes[c] = kinds[c] == AggKind.COUNT_STAR ? DataType.BIGINT : inputTypes[calls[c].getArg()];
      out[groupColumns.length + c] = switch (kinds[c]) {
        case COUNT_STAR, COUNT -> DataType.BIGINT;
        case SUM -> AggLayout.sumType(argTypes[c]);
        case AVG -> DataType.DOUBLE;
        default -> argTypes[c];
      };
    }
    boolean integers = true;
    for (int k : partitionKeys) {
      integers &= inputTypes[k] == DataType.INT || inputTypes[k] == DataType.BIGINT || inputTypes[k] == DataType.TIMESTAMP;
    }
    this.integerKeys = integers;
    this.probe = new long[partitionKeys.length];
    int entryBytes = 160 + 48 * partitionKeys.length + 2 * (96 + 40 * calls.length); // partition, about two sessions
    this.cache = integers ? new KeyCache<>(partitionKeys.length, entryBytes, ctx.cacheBudget()) : new KeyCache<>(entryBytes, ctx.cacheBudget());
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
  }

  @Override
  public void open() {
    table = ctx.table(node.getTableId());
    table.filterKeys(partitionKeys.length);
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    Column time = chunk.column(timeColumn);
    Column[] keys = new Column[partitionKeys.length];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = chunk.column(partitionKeys[k]);
    }
    Column[] args = new Column[calls.length];
    for (int c = 0; c < calls.length; c++) {
      args[c] = kinds[c] == AggKind.COUNT_STAR ? null : chunk.column(calls[c].getArg());
    }
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      if (!Op.isInsert(chunk.op(i))) {
        throw new IllegalStateException("session aggregation over an append-only input received a " + Op.of(chunk.op(i))
            + ": the plan's append-only derivation is wrong for this input");
      }
      if (time.isNull(i) || ((LongColumn) time).getLong(i) < closedBelow) {
        continue; // no time, no session; or late (below the watermark)
      }
      long t = ((LongColumn) time).getLong(i);
      Partition p;
      if (integerKeys && HashAggOp.probeOf(keys, i, probe)) {
        p = cache.get(probe);
        if (p == null) {
          p = load(HashAggOp.boxedKey(keys, i));
        }
      } else {
        Object[] key = HashAggOp.boxedKey(keys, i);
        p = cache.get(Arrays.asList(key));
        if (p == null) {
          p = load(key);
        }
      }
      Session s = join(p, t);
      s.rows++;
      for (int c = 0; c < calls.length; c++) {
        add(s, c, args[c], i);
      }
    }
  }

  /** The session a row at {@code t} belongs to, after the merges it makes. */
  private Session join(Partition p, long t) {
    Map.Entry<Long, Session> below = p.sessions.floorEntry(t);
    Session s = below != null && t - below.getValue().last < gap ? below.getValue() : null;
    Map.Entry<Long, Session> above = p.sessions.higherEntry(t);
    Session next = above != null && above.getKey() - (s == null ? t : Math.max(s.last, t)) < gap ? above.getValue() : null;
    if (s == null && next == null) {
      s = new Session(t, t);
      p.sessions.put(t, s);
      index(p.key, t, t);
    } else if (s == null) {
      s = next; // the row starts it earlier: its first time, the key of its state row, moves
      p.sessions.remove(s.first);
      unstore(p, s);
      s.first = t;
      p.sessions.put(t, s);
      index(p.key, t, s.last);
    } else {
      s.last = Math.max(s.last, t);
      if (next != null) {
        p.sessions.remove(next.first);
        unstore(p, next);
        if (next.emitted != null) {
          p.retracted.add(next.emitted);
        }
        merge(s, next);
      }
    }
    s.changed = true;
    if (!p.dirty) {
      p.dirty = true;
      dirty.add(p);
    }
    return s;
  }

  private void add(Session s, int c, Column arg, int row) {
    AggKind kind = kinds[c];
    if (kind == AggKind.COUNT_STAR) {
      s.counts[c]++;
      return;
    }
    if (arg.isNull(row)) {
      return;
    }
    s.counts[c]++;
    switch (kind) {
      case COUNT -> { }
      case SUM, AVG -> {
        if (arg instanceof DoubleColumn d) {
          s.doubleSums[c] += d.getDouble(row);
        } else if (arg instanceof LongColumn l) {
          s.longSums[c] += l.getLong(row);
        } else {
          s.longSums[c] += ((IntColumn) arg).getInt(row);
        }
      }
      default -> s.extremes[c] = better(kind, arg.get(row), s.extremes[c]);
    }
  }

  /** Adds {@code from}'s states into {@code into}, whose bounds already cover both. */
  private void merge(Session into, Session from) {
    into.last = Math.max(into.last, from.last);
    into.rows += from.rows;
    for (int c = 0; c < calls.length; c++) {
      into.counts[c] += from.counts[c];
      into.longSums[c] += from.longSums[c];
      into.doubleSums[c] += from.doubleSums[c];
      into.extremes[c] = better(kinds[c], from.extremes[c], into.extremes[c]);
    }
  }

  /** The better of a MIN/MAX candidate and the current extreme (either may be null: none yet). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object better(AggKind kind, Object v, Object current) {
    if (v == null || current == null) {
      return v == null ? current : v;
    }
    int cmp = ((Comparable) v).compareTo(current);
    return (kind == AggKind.MIN ? cmp < 0 : cmp > 0) ? v : current;
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    if (watermark.column() != timeColumn || watermark.value() <= closedBelow) {
      return;
    }
    closedBelow = watermark.value();
    if (closing == null) {
      buildIndex();
    }
    while (!closing.isEmpty() && closing.firstKey() <= closedBelow) {
      for (Due d : closing.pollFirstEntry().getValue()) {
        Partition p = probeOfKey(d.key()) ? cache.get(probe) : cache.get(Arrays.asList(d.key()));
        if (p == null) {
          p = load(d.key());
        }
        Session s = p.sessions.get(d.first());
        if (s == null) {
          continue; // merged into another or started earlier since: indexed under its own first time
        }
        if (s.last + gap > closedBelow) {
          index(p.key, s.first, s.last); // extended since: due at its closing time now
          continue;
        }
        if (p.dirty) {
          emit(p, out); // it leaves with its final row emitted
        }
        p.sessions.remove(s.first);
        unstore(p, s);
      }
    }
    out.emitIfAny(builder.take());
  }

  /** Indexes the sessions in the owned state and those not written yet (changed since the last barrier). */
  private void buildIndex() {
    closing = new TreeMap<>();
    int k = partitionKeys.length;
    for (Object[] row : table.scanOwned()) {
      index(Arrays.copyOf(row, k), (Long) row[k], (Long) row[k + 1]);
    }
    for (Partition p : dirty) {
      p.sessions.values().forEach(s -> index(p.key, s.first, s.last));
    }
  }

  private void index(Object[] key, long first, long last) {
    if (closing != null) {
      closing.computeIfAbsent(last + gap, x -> new ArrayList<>(1)).add(new Due(key, first));
    }
  }

  /** Emits what changed in {@code p}'s output since its last emission and writes its changed sessions. */
  private void emit(Partition p, Emitter out) throws InterruptedException {
    List<Object[]> olds = new ArrayList<>(p.retracted);
    List<Object[]> news = new ArrayList<>();
    for (Session s : p.sessions.values()) {
      if (!s.changed) {
        continue;
      }
      if (s.emitted != null) {
        olds.add(s.emitted);
      }
      s.emitted = output(p, s);
      news.add(s.emitted);
      s.changed = false;
      table.put(stateRow(p, s));
      s.stored = true;
    }
    p.retracted.clear();
    boolean[] matched = new boolean[news.size()];
    for (Object[] old : olds) {
      int n = sameKey(old, news);
      if (n < 0) {
        append(Op.DELETE, old, out);
      } else {
        matched[n] = true;
        if (!Arrays.equals(old, news.get(n))) {
          append(Op.UPDATE_DELETE, old, out);
          append(Op.UPDATE_INSERT, news.get(n), out);
        }
      }
    }
    for (int n = 0; n < matched.length; n++) {
      if (!matched[n]) {
        append(Op.INSERT, news.get(n), out);
      }
    }
    p.dirty = false;
  }

  /** The position in {@code rows} of the row with {@code row}'s group key, or -1. */
  private int sameKey(Object[] row, List<Object[]> rows) {
    for (int n = 0; n < rows.size(); n++) {
      if (Arrays.equals(row, 0, groupColumns.length, rows.get(n), 0, groupColumns.length)) {
        return n;
      }
    }
    return -1;
  }

  private void append(Op op, Object[] row, Emitter out) throws InterruptedException {
    if (op == Op.UPDATE_DELETE && builder.size() >= StreamChunk.DEFAULT_CAPACITY - 1) {
      out.emitIfAny(builder.take()); // an update pair stays in one chunk
    }
    out.emitIfAny(builder.appendRow(op.code(), row));
  }

  private Object[] output(Partition p, Session s) {
    Object[] row = new Object[groupColumns.length + calls.length];
    for (int i = 0; i < groupColumns.length; i++) {
      int g = groupColumns[i];
      row[i] = g < partitionKeys.length ? p.key[g] : g == partitionKeys.length ? (Object) s.first : (Object) (s.last + gap);
    }
    for (int c = 0; c < calls.length; c++) {
      int o = groupColumns.length + c;
      row[o] = switch (kinds[c]) {
        case COUNT_STAR, COUNT -> s.counts[c];
        case SUM -> s.counts[c] == 0 ? null : argTypes[c] == DataType.DOUBLE ? (Object) s.doubleSums[c] : (Object) s.longSums[c];
        case AVG -> s.counts[c] == 0 ? null
            : (argTypes[c] == DataType.DOUBLE ? s.doubleSums[c] : (double) s.longSums[c]) / s.counts[c];
        default -> s.extremes[c];
      };
    }
    return row;
  }

  /** (partition keys, first, last, then the {@link AggLayout} states: row count, per call its columns). */
  private Object[] stateRow(Partition p, Session s) {
    List<Object> r = new ArrayList<>(Arrays.asList(p.key));
    r.add(s.first);
    r.add(s.last);
    r.add(s.rows);
    for (int c = 0; c < calls.length; c++) {
      switch (kinds[c]) {
        case COUNT_STAR, COUNT -> r.add(s.counts[c]);
        case SUM, AVG -> {
          r.add(argTypes[c] == DataType.DOUBLE ? (Object) s.doubleSums[c] : (Object) s.longSums[c]);
          r.add(s.counts[c]);
        }
        default -> r.add(s.extremes[c]);
      }
    }
    return r.toArray();
  }

  private Session restore(Object[] state) {
    int p = partitionKeys.length;
    Session s = new Session((Long) state[p], (Long) state[p + 1]);
    p += 2;
    s.rows = (Long) state[p++];
    for (int c = 0; c < calls.length; c++) {
      switch (kinds[c]) {
        case COUNT_STAR, COUNT -> s.counts[c] = (Long) state[p++];
        case SUM, AVG -> {
          Object sum = state[p++];
          if (argTypes[c] == DataType.DOUBLE) {
            s.doubleSums[c] = sum == null ? 0 : (Double) sum;
          } else {
            s.longSums[c] = sum == null ? 0 : (Long) sum;
          }
          s.counts[c] = (Long) state[p++];
        }
        default -> s.extremes[c] = state[p++];
      }
    }
    s.stored = true;
    return s;
  }

  /** Deletes a session's state row, if written: call before its first time changes or when it goes. */
  private void unstore(Partition p, Session s) {
    if (s.stored) {
      Object[] pk = Arrays.copyOf(p.key, partitionKeys.length + 1);
      pk[partitionKeys.length] = s.first;
      table.deleteByPk(pk);
      s.stored = false;
    }
  }

  /** A partition not in the cache, read from state (its sessions as emitted at the last barrier) and cached. */
  private Partition load(Object[] key) {
    Partition p = new Partition(key);
    for (Object[] state : table.scanPrefix(key)) {
      Session s = restore(state);
      s.emitted = output(p, s);
      p.sessions.put(s.first, s);
    }
    if (probeOfKey(key)) {
      cache.put(probe, p);
    } else {
      cache.put(Arrays.asList(key), p);
    }
    return p;
  }

  /** Whether a boxed partition key has an integer form (keys integers, none null); if so, fills {@link #probe}. */
  private boolean probeOfKey(Object[] key) {
    return integerKeys && HashAggOp.probeOfKey(key, probe);
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    for (Partition p : dirty) {
      if (p.dirty) {
        emit(p, out);
      }
    }
    dirty.clear();
    out.emitIfAny(builder.take());
    table.commit(barrier.prevEpoch());
    cache.age(); // every partition is clean: an evicted one is read back from state
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    table.updateVnodes(vnodes);
    cache.clear(); // partitions of lost vnodes go; those of regained ones may be stale
    closing = null; // built again from the owned state at the next watermark
  }

  @Override
  public void close() {
    cache.clear(); // gives the budget back
  }
}
