package dev.tide.stream.operator;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.JoinCleanup;
import dev.tide.proto.plan.JoinType;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.expr.ChunkExpr;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Unbounded inner equi-join, both sides in state tables keyed (join key, stream key). A row of one
 * side updates its table and is joined at once with the other side's rows of the same key; output
 * rows carry the input row's op (update pairs become delete + insert, as a pair's matches differ).
 * Null keys never match and are not stored.
 *
 * <p>Cache: per side, join key → rows ({@link KeyCache}, two generations), filled on lookup and by
 * the first row of a key the key filter proves new, and kept in step with writes; a key whose rows
 * a watermark deletes leaves it. Keys whose columns are all integers are found by their long values, and
 * rows are written to state and to the output from the chunk's columns, so a row that matches
 * nothing boxes nothing. The state tables' key filter answers lookups of join keys without rows
 * (the common case of a new key) without a store read. A side whose join key covers its stream key
 * (one row per key, e.g. auctions by id) caches its own key on insert, so the other side finds it
 * without a store scan; if that side is also append-only (each key arrives once), the rows it
 * looks up on the other side are not cached, as nothing on its side will ask for them again.
 *
 * <p>Settled rows are not stored: when the other side is unique and append-only, a key's row there
 * is the only one it will ever have, so a row that finds it (a bid whose auction is in) is joined
 * and not written to state: no later row of the other side can match it. Only rows that come before
 * their match are stored. A later delete of a settled row joins the same match and writes a
 * tombstone over nothing.
 *
 * <p>Side filters ({@link HashJoinNode#getLeftFilter()}, inner joins): a side's rows are stored and
 * matched whether or not they pass its filter, but only those that pass join into output rows; the
 * cache keeps, per key, the rows that pass next to all of them (the filter is evaluated on each
 * input chunk, and over a key's rows when they are read from state).
 *
 * <p>Outer joins ({@link HashJoinNode#getJoinType()}): a row of a preserved side whose key has no
 * row on the other side (or is null) is emitted padded with nulls. Since the condition is the key
 * equality alone, a row has matches exactly when the other side has rows under its key: when the
 * first row of a key arrives on one side, the padded rows of the other side's rows under that key are
 * deleted before the joined rows are inserted, and when the last one leaves they are inserted again.
 * Outer joins store every row (no settled rows) and look up the row's own side under its key.
 *
 * <p>Interval bounds ({@link HashJoinNode#getCleanupsList()}): a row of side s whose bounded column
 * is below the other side's watermark on the bound's other column can match no later row, so it is
 * deleted from state when that watermark arrives (found by an index of stored rows by the column,
 * built from the owned state at the first such watermark after a start or a vnode change).
 *
 * <p>Watermarks: once both sides have one on the same join key column (a window), rows of either
 * side below the lesser of the two can match no later row, so they are deleted from state (by the
 * primary keys a {@link WindowKeys} index per side holds; the join key leads them), and the lesser
 * watermark goes on to both output columns of that key. Watermarks on other columns end here.
 */
public final class HashJoinOp implements Operator {
  /** A side's cache; an entry's heap is estimated as a key's rows of {@code columns} boxed values. */
  private static <V> KeyCache<V> newCache(boolean integerKeys, int width, int columns, CacheBudget budget) {
    int bytes = 128 + 24 * width + 40 * columns;
    return integerKeys ? new KeyCache<>(width, bytes, budget) : new KeyCache<>(bytes, budget);
  }

  private final int[][] keys = new int[2][];
  private final DataType[][] keyTypes = new DataType[2][];
  private final int[] tableIds = new int[2];
  private final boolean[] appendOnly = new boolean[2];
  private final boolean[] unique = new boolean[2];
  private final boolean[] preserved = new boolean[2]; // rows of the side are kept, padded, when they match nothing
  private final Object[][] nulls = new Object[2][];
  private final DataType[][] sideTypes;
  private final ChunkExpr[] filters = new ChunkExpr[2]; // a side's rows that join (HashJoinNode.left_filter/right_filter), or null
  private final boolean integerKeys;
  private final ActorContext ctx;
  private final StateTable[] tables = new StateTable[2];
  private final List<KeyCache<KeyRows>> caches;
  private final ChunkBuilder builder;
  private final long[] probe;
  private Object[] boxedKey; // the current row's key when keys are not integers
  private int[] rowVnodes = new int[StreamChunk.DEFAULT_CAPACITY];
  private final int leftWidth;
  /** Position in the join keys of the window whose watermarks clean state; -1 until one arrives. */
  private int windowKey = -1;
  private final long[] sideWatermarks = {Long.MIN_VALUE, Long.MIN_VALUE};
  private long cleanedBelow = Long.MIN_VALUE;
  private final WindowKeys[] windows = new WindowKeys[2];
  private final List<JoinCleanup> cleanups;
  private final List<NavigableMap<Long, List<Object[]>>> cleanupIndexes = new ArrayList<>(); // null until built
  private final long[] cleanedBelowByBound;

  public HashJoinOp(HashJoinNode node, DataType[] leftTypes, DataType[] rightTypes, ActorContext ctx) {
    this.ctx = ctx;
    keys[0] = node.getLeftKeysList().stream().mapToInt(Integer::intValue).toArray();
    keys[1] = node.getRightKeysList().stream().mapToInt(Integer::intValue).toArray();
    DataType[][] types = {leftTypes, rightTypes};
    this.sideTypes = types;
    boolean integers = true;
    for (int s = 0; s < 2; s++) {
      keyTypes[s] = new DataType[keys[s].length];
      for (int i = 0; i < keys[s].length; i++) {
        keyTypes[s][i] = types[s][keys[s][i]];
        integers &= keyTypes[s][i] == DataType.INT || keyTypes[s][i].isLongBacked();
      }
    }
    this.integerKeys = integers;
    this.caches = List.of(newCache(integers, keys[0].length, leftTypes.length, ctx.cacheBudget()),
        newCache(integers, keys[0].length, rightTypes.length, ctx.cacheBudget()));
    this.probe = new long[keys[0].length];
    tableIds[0] = node.getLeftTableId();
    tableIds[1] = node.getRightTableId();
    appendOnly[0] = node.getLeftAppendOnly();
    appendOnly[1] = node.getRightAppendOnly();
    DataType[] out = Arrays.copyOf(leftTypes, leftTypes.length + rightTypes.length);
    System.arraycopy(rightTypes, 0, out, leftTypes.length, rightTypes.length);
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
    this.leftWidth = leftTypes.length;
    JoinType type = node.getJoinType();
    preserved[0] = type == JoinType.LEFT_OUTER || type == JoinType.FULL_OUTER;
    preserved[1] = type == JoinType.RIGHT_OUTER || type == JoinType.FULL_OUTER;
    nulls[0] = new Object[leftTypes.length];
    nulls[1] = new Object[rightTypes.length];
    if ((node.hasLeftFilter() || node.hasRightFilter()) && type != JoinType.INNER) {
      throw new IllegalArgumentException("a " + type + " join takes no side filter: the compiler moves filters into inner joins only");
    }
    filters[0] = node.hasLeftFilter() ? ChunkExpr.compile(node.getLeftFilter()) : null;
    filters[1] = node.hasRightFilter() ? ChunkExpr.compile(node.getRightFilter()) : null;
    this.cleanups = node.getCleanupsList();
    this.cleanedBelowByBound = new long[cleanups.size()];
    Arrays.fill(cleanedBelowByBound, Long.MIN_VALUE);
    for (int c = 0; c < cleanups.size(); c++) {
      cleanupIndexes.add(null);
    }
  }

  /** Indexes a row just stored on {@code side} under each bound of that side whose index is built. */
  private void indexBounded(int side, Object[] row) {
    for (int c = 0; c < cleanups.size(); c++) {
      JoinCleanup b = cleanups.get(c);
      if (b.getSide() != side || cleanupIndexes.get(c) == null) {
        continue;
      }
      Object t = row[b.getColumn()];
      if (t != null) {
        cleanupIndexes.get(c).computeIfAbsent((Long) t, x -> new ArrayList<>()).add(tables[side].pkOf(row));
      }
    }
  }

  /** Deletes the rows the bounds release once the other side's watermark on their other column reached {@code value}. */
  private void cleanBounded(int side, Watermark watermark) {
    for (int c = 0; c < cleanups.size(); c++) {
      JoinCleanup b = cleanups.get(c);
      if (b.getSide() != 1 - side || b.getOtherColumn() != watermark.column() || watermark.value() <= cleanedBelowByBound[c]) {
        continue;
      }
      cleanedBelowByBound[c] = watermark.value();
      StateTable t = tables[b.getSide()];
      if (cleanupIndexes.get(c) == null) {
        NavigableMap<Long, List<Object[]>> index = new TreeMap<>();
        for (Object[] row : t.scanOwned()) {
          Object v = row[b.getColumn()];
          if (v != null) {
            index.computeIfAbsent((Long) v, x -> new ArrayList<>()).add(t.pkOf(row));
          }
        }
        cleanupIndexes.set(c, index);
      }
      SortedMap<Long, List<Object[]>> released = cleanupIndexes.get(c).headMap(watermark.value());
      for (List<Object[]> pks : released.values()) {
        for (Object[] pk : pks) {
          t.deleteByPk(pk);
          forget(b.getSide(), pk);
        }
      }
      released.clear();
    }
  }

  /** A row of side {@code side} padded with the other side's nulls. */
  private Object[] padded(int side, Object[] row) {
    Object[] out = new Object[nulls[0].length + nulls[1].length];
    System.arraycopy(row, 0, out, side == 0 ? 0 : nulls[0].length, row.length);
    return out;
  }

  @Override
  public void open() {
    for (int s = 0; s < 2; s++) {
      tables[s] = ctx.table(tableIds[s]);
      tables[s].filterKeys(Math.min(keys[s].length, tables[s].pkColumns()));
      // The table's pk is the join key followed by the stream key columns not in it.
      unique[s] = tables[s].pkColumns() <= keys[s].length;
    }
  }

  /** One join key's rows of one side; a row is found by its pk in constant time once there are many. */
  private static final class KeyRows {
    private static final int INDEX_FROM = 8;

    final List<Object[]> rows;
    final List<Object[]> joining; // the rows that pass the side's filter: rows itself if it has none
    private Map<List<Object>, Integer> positions; // pk -> index in rows, once rows outgrow a linear search

    KeyRows(List<Object[]> rows, List<Object[]> joining, StateTable table) {
      this.rows = rows;
      this.joining = joining;
      indexIfLarge(table);
    }

    private void indexIfLarge(StateTable table) {
      if (positions == null && rows.size() > INDEX_FROM) {
        positions = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
          positions.put(Arrays.asList(table.pkOf(rows.get(i))), i);
        }
      }
    }

    void add(Object[] row, boolean joins, StateTable table) {
      rows.add(row);
      if (joining != rows && joins) {
        joining.add(row);
      }
      if (positions != null) {
        positions.put(Arrays.asList(table.pkOf(row)), rows.size() - 1);
      } else {
        indexIfLarge(table);
      }
    }

    /** Removes the row with {@code row}'s pk (the last row moves into its place). */
    void remove(Object[] row, StateTable table) {
      int at;
      if (positions == null) {
        at = -1;
        for (int i = 0; i < rows.size() && at < 0; i++) {
          if (Arrays.equals(rows.get(i), row)) {
            at = i;
          }
        }
      } else {
        Integer p = positions.remove(Arrays.asList(table.pkOf(row)));
        at = p == null ? -1 : p;
      }
      if (at < 0) {
        return;
      }
      if (joining != rows) {
        Object[] gone = rows.get(at);
        joining.removeIf(r -> r == gone);
      }
      Object[] last = rows.remove(rows.size() - 1);
      if (at < rows.size()) {
        rows.set(at, last);
        if (positions != null) {
          positions.put(Arrays.asList(table.pkOf(last)), at);
        }
      }
    }
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    int other = 1 - side;
    int n = chunk.size();
    rowVnodes = tables[side].vnodes(chunk, rowVnodes);
    boolean outer = preserved[0] || preserved[1];
    BoolColumn passes = filters[side] == null ? null : (BoolColumn) filters[side].eval(chunk);
    for (int i = 0; i < n; i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      byte op = Op.normalize(chunk.op(i));
      boolean insert = Op.isInsert(op);
      boolean joins = passes == null || passes.isTrue(i);
      if (!keyOf(side, chunk, i)) {
        if (preserved[side]) {
          out.emitIfAny(builder.appendRow(op, padded(side, chunk.row(i)))); // a null key matches nothing
        }
        continue;
      }
      KeyRows matches = rows(other, !(unique[side] && appendOnly[side]));
      boolean settled = !outer && insert && unique[other] && appendOnly[other] && !matches.rows.isEmpty();
      int before = -1;
      int after = -1;
      if (!settled) {
        KeyRows own = preserved[other] || (insert && unique[side]) ? rows(side, true) : cached(side);
        if (own == null && insert && tables[side].provenEmpty(currentPrefix(side))) {
          own = keyRows(side, new ArrayList<>()); // its first row: cached, so the other side finds it
          cache(side, own);
        }
        before = own == null ? -1 : own.rows.size();
        if (insert) {
          if (appendOnly[side]) {
            tables[side].insertNew(chunk, i, rowVnodes[i]); // its pk holds the stream key: never stored before
          } else {
            tables[side].put(chunk, i, rowVnodes[i]);
          }
          if (windows[side] != null) {
            windows[side].add(tables[side].pkOf(chunk.row(i)));
          }
          if (!cleanups.isEmpty()) {
            indexBounded(side, chunk.row(i));
          }
          if (own != null) {
            own.add(chunk.row(i), joins, tables[side]);
          }
        } else {
          tables[side].delete(chunk, i, rowVnodes[i]);
          if (own != null) {
            own.remove(chunk.row(i), tables[side]);
          }
        }
        after = own == null ? -1 : own.rows.size();
      }
      if (preserved[other] && insert && before == 0) {
        for (Object[] match : matches.rows) {
          out.emitIfAny(builder.appendRow(Op.DELETE.code(), padded(other, match))); // its first match arrived
        }
      }
      if (joins) {
        for (Object[] match : matches.joining) {
          out.emitIfAny(side == 0 ? builder.appendJoined(op, chunk, i, match) : builder.appendJoined(op, match, chunk, i));
        }
      }
      if (preserved[other] && !insert && before > 0 && after == 0) {
        for (Object[] match : matches.rows) {
          out.emitIfAny(builder.appendRow(Op.INSERT.code(), padded(other, match))); // its last match left
        }
      }
      if (preserved[side] && matches.rows.isEmpty()) {
        out.emitIfAny(builder.appendRow(op, padded(side, chunk.row(i))));
      }
    }
    out.emitIfAny(builder.take());
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    if (!cleanups.isEmpty()) {
      cleanBounded(side, watermark);
    }
    int k = WindowKeys.position(keys[side], watermark.column());
    if (k < 0 || (windowKey >= 0 && k != windowKey)) {
      return; // one cleaning column; watermarks on other columns end here
    }
    if (windowKey < 0) {
      windowKey = k;
      windows[0] = new WindowKeys(k);
      windows[1] = new WindowKeys(k);
    }
    sideWatermarks[side] = Math.max(sideWatermarks[side], watermark.value());
    long bound = Math.min(sideWatermarks[0], sideWatermarks[1]);
    if (bound <= cleanedBelow) {
      return;
    }
    cleanedBelow = bound;
    for (int s = 0; s < 2; s++) {
      StateTable t = tables[s];
      for (Object[] pk : windows[s].takeBelow(bound, () -> t.scanOwned().stream().map(t::pkOf).toList())) {
        t.deleteByPk(pk);
        forget(s, pk);
      }
    }
    // A key column that padded rows leave null (the other side's of an outer join) carries none.
    if (!preserved[1]) {
      out.watermark(new Watermark(keys[0][windowKey], bound));
    }
    if (!preserved[0]) {
      out.watermark(new Watermark(leftWidth + keys[1][windowKey], bound));
    }
  }

  /**
   * Makes row {@code row}'s join key the current key ({@link #probe} for integer keys, else
   * {@link #boxedKey}); false if a key column is null.
   */
  private boolean keyOf(int side, StreamChunk chunk, int row) {
    int[] k = keys[side];
    if (integerKeys) {
      for (int i = 0; i < k.length; i++) {
        Column c = chunk.column(k[i]);
        if (c.isNull(row)) {
          return false;
        }
        probe[i] = c instanceof LongColumn l ? l.getLong(row) : ((IntColumn) c).getInt(row);
      }
      return true;
    }
    boxedKey = new Object[k.length];
    for (int i = 0; i < k.length; i++) {
      boxedKey[i] = normalize(chunk.column(k[i]).get(row));
      if (boxedKey[i] == null) {
        return false;
      }
    }
    return true;
  }

  /** Join keys compare across INT and BIGINT (integers widen to Long), and -0.0 equals 0.0. */
  private static Object normalize(Object v) {
    return v instanceof Integer i ? (Object) i.longValue() : HashAggOp.normalizeZero(v);
  }

  /** The cached rows of one side under the current key, or null. */
  private KeyRows cached(int side) {
    return integerKeys ? caches.get(side).get(probe) : caches.get(side).get(Arrays.asList(boxedKey));
  }

  /** The rows of one side under the current key: cached, or scanned from state (and cached if {@code keep}). */
  private KeyRows rows(int side, boolean keep) {
    KeyRows rows = cached(side);
    if (rows == null) {
      rows = keyRows(side, new ArrayList<>(tables[side].scanPrefix(currentPrefix(side))));
      if (keep) {
        cache(side, rows);
      }
    }
    return rows;
  }

  /** A key's rows of {@code side}, with those that pass its filter (evaluated over them as one chunk). */
  private KeyRows keyRows(int side, List<Object[]> rows) {
    if (filters[side] == null) {
      return new KeyRows(rows, rows, tables[side]);
    }
    List<Object[]> joining = new ArrayList<>(rows.size());
    if (!rows.isEmpty()) {
      ChunkBuilder b = new ChunkBuilder(sideTypes[side], rows.size());
      StreamChunk c = null;
      for (Object[] r : rows) {
        c = b.appendRow(Op.INSERT.code(), r);
      }
      BoolColumn p = (BoolColumn) filters[side].eval(c);
      for (int i = 0; i < rows.size(); i++) {
        if (p.isTrue(i)) {
          joining.add(rows.get(i));
        }
      }
    }
    return new KeyRows(rows, joining, tables[side]);
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    tables[0].updateVnodes(vnodes);
    tables[1].updateVnodes(vnodes);
    for (WindowKeys w : windows) {
      if (w != null) {
        w.reset();
      }
    }
    for (int c = 0; c < cleanupIndexes.size(); c++) {
      cleanupIndexes.set(c, null); // rebuilt from the owned state at the next watermark
    }
    // Entries of lost vnodes go now, so none is stale if the vnode comes back after another actor
    // owned it; entries of kept vnodes stay valid (with none lost, all of them: nothing to look at).
    for (int s = 0; s < 2 && !old.isSubsetOf(vnodes); s++) {
      StateTable t = tables[s];
      DataType[] types = keyTypes[s];
      caches.get(s).retainKeys(k -> t.owns(prefixOf(types, k)), t::ownsIntegers);
    }
  }

  /** The state-table key prefix of a normalized join key (integers were widened to Long: INT columns narrowed back). */
  private static Object[] prefixOf(DataType[] types, Object[] key) {
    Object[] prefix = new Object[types.length];
    for (int i = 0; i < prefix.length; i++) {
      prefix[i] = types[i] == DataType.INT && key[i] instanceof Long l ? (Object) l.intValue() : key[i];
    }
    return prefix;
  }

  /** The state-table key prefix of an integer join key (INT columns narrowed back). */
  private static Object[] prefixOf(DataType[] types, long[] key) {
    Object[] prefix = new Object[types.length];
    for (int i = 0; i < prefix.length; i++) {
      prefix[i] = types[i] == DataType.INT ? (Object) (int) key[i] : (Object) key[i];
    }
    return prefix;
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    tables[0].commit(barrier.prevEpoch());
    tables[1].commit(barrier.prevEpoch());
    caches.forEach(KeyCache::age);
  }

  @Override
  public void close() {
    caches.forEach(KeyCache::clear); // gives the budget back
  }

  /** Join keys cached for one side (for tests of eviction). */
  int cachedKeys(int side) {
    return caches.get(side).size();
  }

  /** The state-table key prefix of the current key on {@code side}. */
  private Object[] currentPrefix(int side) {
    return integerKeys ? prefixOf(keyTypes[side], probe) : prefixOf(keyTypes[side], boxedKey);
  }

  /** Puts {@code rows} in {@code side}'s cache under the current key. */
  private void cache(int side, KeyRows rows) {
    if (integerKeys) {
      caches.get(side).put(probe, rows);
    } else {
      caches.get(side).put(Arrays.asList(boxedKey), rows);
    }
  }

  /** Drops from {@code side}'s cache the join key of a row deleted by its pk (which the join key leads). */
  private void forget(int side, Object[] pk) {
    int k = keys[side].length;
    if (integerKeys) {
      long[] key = new long[k];
      for (int i = 0; i < k; i++) {
        key[i] = ((Number) pk[i]).longValue();
      }
      caches.get(side).remove(key);
    } else {
      Object[] key = new Object[k];
      for (int i = 0; i < k; i++) {
        key[i] = normalize(pk[i]);
      }
      caches.get(side).remove(Arrays.asList(key));
    }
  }
}
