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
import dev.tide.proto.plan.HashAggNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;
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
 * Hash aggregation with retractions. Each group's state row ({@link AggLayout}) is the source of truth
 * for the output last emitted; changes are emitted once per barrier per changed group (insert,
 * update pair, or delete when its row count reaches zero). Over an input that can retract, MIN/MAX
 * keep a multiset of values per group in their own table, so retracting the current extreme finds
 * the next one; the multiset is written at the barrier, once per value changed in the epoch. Over
 * an append-only input ({@link HashAggNode#getAppendOnlyInput()}, derived by the planner) the
 * extreme in the group's state row is all they keep, and a retraction is refused. COUNT(DISTINCT)
 * keeps the multiset of its values the same way over any input; its count, in the state row,
 * changes when a value's multiplicity leaves or reaches zero.
 *
 * <p>Held barriers ({@link #beginBarrier}): emitting at barriers and without multisets, the
 * aggregation seals the epoch's changed groups at the barrier and writes and emits them in slices
 * while the actor feeds it the next epoch; a row for a sealed group flushes that group first. Its
 * output of an epoch is the same set of changes as when it flushes at the barrier, in another order
 * (a key changes at most once per epoch). Reschedules and other barriers with a mutation flush at once.
 *
 * <p>Cache: groups live in memory ({@link KeyCache}, two generations, bounded by the heap budget
 * all operators' caches share, {@link ActorContext#cacheBudget()}); groups not touched for a
 * while are evicted at barriers, when every group is clean (state is in the store, so eviction is
 * always safe). Groups whose key
 * columns are all integers (INT, BIGINT, TIMESTAMP) and not null are found by their long values,
 * without boxing per row; other keys by their boxed values.
 *
 * <p>Partial input ({@link HashAggNode#getPartialInput()}): the second phase of a two-phase
 * aggregation. Each input row is a {@link LocalAggOp} row (group key at columns 0..k-1, then partial
 * states in the result table's layout) whose deltas are added to its group, as if the rows they
 * combine had arrived one by one; state, barriers and output are those of the one-phase aggregation.
 *
 * <p>Emit on window close ({@link HashAggNode#getEmitOnWindowClose()}): one group key column is a
 * window ({@code window_key}). A group's row is emitted once, as an insert, when the watermark on
 * that column passes its window, and its state row is deleted then: the output is append-only and
 * state holds open windows only. Every open group lives in memory, indexed by window (reloaded from
 * state on the first row after start or after a vnode change). A row below the watermark, or
 * without a window, is late and dropped. The input is append-only (the planner's rule). The
 * watermark goes on to the output's window column once the rows it closed are emitted; an
 * aggregation that emits at barriers passes none on (its pending changes could be below it).
 */
public final class HashAggOp implements Operator {

  private final int[] groupKeys;
  private final AggCall[] calls;
  private final DataType[] argTypes;
  private final DataType[] outTypes;
  private final DataType[] groupTypes;
  private final ActorContext ctx;
  private final HashAggNode node;
  private final boolean appendOnlyInput;
  private final boolean partialInput;
  private StateTable result;
  private StateTable[] minmax;
  private final AggKind[] kinds;
  private final KeyCache<Group> cache;
  private final boolean integerKeys; // every key column is an integer: non-null keys are found by their longs
  private final long[] probe;
  private List<Group> dirty = new ArrayList<>();
  private final ChunkBuilder builder;
  private final int stateWidth; // group key and state columns of a result-table row
  private final int windowKey; // position in groupKeys of the window that closes groups; -1: emit at barriers
  private final NavigableMap<Long, List<Group>> openWindows = new TreeMap<>();
  private long closedBelow = Long.MIN_VALUE;
  private boolean loaded;
  /** Groups flushed per slice of a held barrier (see {@link #beginBarrier}). */
  static final int FLUSH_SLICE = 8192;
  private final int flushSlice;
  private int generation; // of the groups changing now; a held barrier seals the one before
  private List<Group> sealed; // the held barrier's changed groups (null: no barrier held), flushed from sealedAt on
  private int sealedAt;
  private Barrier sealedBarrier;

  /** Running state of one group. */
  private final class Group {
    final Object[] key;
    long rowCount;
    // Per call; an array no call uses is null (a group is small: millions of them may be cached).
    final long[] counts = new long[calls.length];
    final long[] longSums = shape.longSums ? new long[calls.length] : null;
    final double[] doubleSums = shape.doubleSums ? new double[calls.length] : null;
    final Object[] extremes = shape.extremes ? new Object[calls.length] : null;
    final boolean[] staleExtreme = shape.multisets ? new boolean[calls.length] : null;
    // MIN/MAX over a retracting input, COUNT(DISTINCT): value -> change of its multiplicity in this epoch
    @SuppressWarnings("unchecked")
    final Map<Object, long[]>[] multisetDeltas = shape.multisets ? new Map[calls.length] : null;
    Object[] lastOutput; // while dirty, emitting at barriers: the row emitted last (null: none yet)
    boolean emitted; // emitting at barriers: a row of the group was emitted (or it was loaded from state)
    boolean isDirty;
    int generation; // while dirty: the generation it changed in (an older one: sealed at a held barrier, not yet flushed)
    boolean closed; // emitted at its window's close; its state is deleted
    boolean stored; // windows closing: its state row was written at a barrier or loaded (else there is none to delete)

    Group(Object[] key) {
      this.key = key;
    }
  }

  /** Which of a group's per-call arrays some call uses. */
  private record Shape(boolean longSums, boolean doubleSums, boolean extremes, boolean multisets) {
    /** Heap of one cached group, estimated (objects, arrays, boxed key and output values, map slot). */
    int bytes(int keys, int calls) {
      int arrays = 1 + (longSums ? 1 : 0) + (doubleSums ? 1 : 0) + (extremes ? 1 : 0) + (multisets ? 2 : 0);
      return 96 + 48 * keys + 24 * calls + arrays * (16 + 8 * calls) + (extremes ? 16 * calls : 0);
    }
  }

  private final Shape shape;

  public HashAggOp(HashAggNode node, DataType[] inputTypes, ActorContext ctx) {
    this(node, inputTypes, ctx, FLUSH_SLICE);
  }

  /** With {@code flushSlice} groups flushed per slice of a held barrier (tests use small slices). */
  HashAggOp(HashAggNode node, DataType[] inputTypes, ActorContext ctx, int flushSlice) {
    if (flushSlice < 1) {
      throw new IllegalArgumentException("flush slice must be at least one group, got " + flushSlice);
    }
    this.flushSlice = flushSlice;
    this.node = node;
    this.appendOnlyInput = node.getAppendOnlyInput();
    this.partialInput = node.getPartialInput();
    this.ctx = ctx;
    this.groupKeys = node.getGroupKeysList().stream().mapToInt(Integer::intValue).toArray();
    this.calls = node.getCallsList().toArray(new AggCall[0]);
    this.kinds = new AggKind[calls.length];
    for (int c = 0; c < calls.length; c++) {
      kinds[c] = calls[c].getKind();
    }
    this.groupTypes = new DataType[groupKeys.length];
    for (int i = 0; i < groupKeys.length; i++) {
      groupTypes[i] = inputTypes[groupKeys[i]];
    }
    this.argTypes = new DataType[calls.length];
    DataType[] out = Arrays.copyOf(groupTypes, groupKeys.length + calls.length);
    for (int c = 0; c < calls.length; c++) {
      AggKind k = calls[c].getKind();
      argTypes[c] = k == AggKind.COUNT_STAR ? DataType.BIGINT : inputTypes[calls[c].getArg()];
      out[groupKeys.length + c] = switch (k) {
        case COUNT_STAR, COUNT, COUNT_DISTINCT -> DataType.BIGINT;
        case SUM -> AggLayout.sumType(argTypes[c]);
        case AVG -> DataType.DOUBLE;
        default -> argTypes[c];
      };
    }
    this.outTypes = out;
    boolean integers = true;
    for (DataType t : groupTypes) {
      integers &= t == DataType.INT || t == DataType.BIGINT || t == DataType.TIMESTAMP;
    }
    this.integerKeys = integers;
    boolean longSums = false;
    boolean doubleSums = false;
    boolean extremes = false;
    boolean multisets = false;
    for (int c = 0; c < calls.length; c++) {
      AggKind k = kinds[c];
      boolean sum = k == AggKind.SUM || k == AggKind.AVG;
      longSums |= sum && argTypes[c] != DataType.DOUBLE;
      doubleSums |= sum && argTypes[c] == DataType.DOUBLE;
      boolean multiset = (isMinMax(calls[c]) && !appendOnlyInput) || k == AggKind.COUNT_DISTINCT;
      extremes |= isMinMax(calls[c]) || multiset;
      multisets |= multiset;
    }
    this.shape = new Shape(longSums, doubleSums, extremes, multisets);
    int groupBytes = shape.bytes(groupKeys.length, calls.length);
    this.cache = integers ? new KeyCache<>(groupKeys.length, groupBytes, ctx.cacheBudget()) : new KeyCache<>(groupBytes, ctx.cacheBudget());
    this.probe = new long[groupKeys.length];
    this.builder = new ChunkBuilder(outTypes, StreamChunk.DEFAULT_CAPACITY);
    this.stateWidth = groupKeys.length + AggLayout.stateFields(node.getCallsList(), inputTypes).size();
    this.windowKey = node.getEmitOnWindowClose() ? node.getWindowKey() : -1;
  }

  @Override
  public void open() {
    result = ctx.table(node.getResultTableId());
    if (windowKey < 0) {
      result.filterKeys(0); // with windows closing, every open group is in memory: no lookups to filter
      result.writesOncePerEpoch(); // each changed group once, at the barrier, then the commit
    }
    minmax = new StateTable[calls.length];
    for (int c = 0; c < calls.length; c++) {
      if ((isMinMax(calls[c]) && !appendOnlyInput) || kinds[c] == AggKind.COUNT_DISTINCT) {
        minmax[c] = ctx.table(calls[c].getMinmaxTableId());
        minmax[c].filterKeys(groupKeys.length);
      }
    }
  }

  private static boolean isMinMax(AggCall c) {
    return c.getKind() == AggKind.MIN || c.getKind() == AggKind.MAX;
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    if (windowKey >= 0 && !loaded) {
      loadOpenWindows(out);
    }
    if (partialInput) {
      processPartial(chunk, out);
      return;
    }
    int n = chunk.size();
    Column[] args = new Column[calls.length];
    for (int c = 0; c < calls.length; c++) {
      args[c] = kinds[c] == AggKind.COUNT_STAR ? null : chunk.column(calls[c].getArg());
    }
    Column[] keyColumns = new Column[groupKeys.length];
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = chunk.column(groupKeys[k]);
    }
    for (int i = 0; i < n; i++) {
      if (!chunk.visible(i) || late(keyColumns, i)) {
        continue;
      }
      int sign = Op.sign(chunk.op(i));
      if (sign < 0 && appendOnlyInput) {
        throw new IllegalStateException("aggregation over an append-only input received a " + Op.of(chunk.op(i))
            + ": the plan's append-only derivation is wrong for this input");
      }
      Group g = live(group(keyColumns, i), out);
      touch(g);
      g.rowCount += sign;
      for (int c = 0; c < calls.length; c++) {
        apply(g, c, args[c], i, sign);
      }
    }
  }

  /** Adds each row's partial states (a {@link LocalAggOp} row) to its group. */
  private void processPartial(StreamChunk chunk, Emitter out) throws InterruptedException {
    Column[] keyColumns = new Column[groupKeys.length];
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = chunk.column(groupKeys[k]);
    }
    LongColumn rowCounts = (LongColumn) chunk.column(groupKeys.length);
    Column[] states = new Column[calls.length];
    LongColumn[] counts = new LongColumn[calls.length];
    for (int c = 0; c < calls.length; c++) {
      states[c] = chunk.column(calls[c].getArg());
      if (kinds[c] == AggKind.SUM || kinds[c] == AggKind.AVG) {
        counts[c] = (LongColumn) chunk.column(calls[c].getArg() + 1);
      }
    }
    int n = chunk.size();
    for (int i = 0; i < n; i++) {
      if (!chunk.visible(i) || late(keyColumns, i)) {
        continue;
      }
      long rows = rowCounts.getLong(i);
      if (rows < 0 && appendOnlyInput) {
        throw new IllegalStateException("aggregation over an append-only input received partial states retracting " + (-rows)
            + " rows: the plan's append-only derivation is wrong for this input");
      }
      Group g = live(group(keyColumns, i), out);
      touch(g);
      g.rowCount += rows;
      for (int c = 0; c < calls.length; c++) {
        switch (kinds[c]) {
          case COUNT_STAR, COUNT -> g.counts[c] += ((LongColumn) states[c]).getLong(i);
          case SUM, AVG -> {
            g.counts[c] += counts[c].getLong(i);
            if (states[c] instanceof DoubleColumn d) {
              g.doubleSums[c] += d.getDouble(i);
            } else {
              g.longSums[c] += ((LongColumn) states[c]).getLong(i);
            }
          }
          default -> {
            if (!appendOnlyInput) {
              throw new IllegalStateException("partial " + kinds[c] + " over a retracting input: MIN/MAX split into phases"
                  + " only over an append-only input");
            }
            if (!states[c].isNull(i)) {
              keepExtreme(g, c, states[c], i);
            }
          }
        }
      }
    }
  }

  /** With windows closing: whether row {@code row} has no window or one the watermark has closed. */
  private boolean late(Column[] keyColumns, int row) {
    return windowKey >= 0 && WindowKeys.late(keyColumns[windowKey], row, closedBelow);
  }

  /** Loads every group of the owned vnodes from state (all open: closed ones are deleted), then closes what the watermark passed. */
  private void loadOpenWindows(Emitter out) throws InterruptedException {
    loaded = true;
    for (Object[] state : result.scanOwned()) {
      Group g = new Group(Arrays.copyOf(state, groupKeys.length));
      restore(g, state);
      g.stored = true;
      opened(g);
      remember(g);
    }
    closeWindows(out);
  }

  private Group opened(Group g) {
    openWindows.computeIfAbsent((Long) g.key[windowKey], w -> new ArrayList<>()).add(g);
    return g;
  }

  /** Emits the groups of every window below the watermark and deletes their state. */
  private void closeWindows(Emitter out) throws InterruptedException {
    SortedMap<Long, List<Group>> closing = openWindows.headMap(closedBelow);
    for (List<Group> groups : closing.values()) {
      for (Group g : groups) {
        g.closed = true;
        flushMultisets(g);
        emit(out, Op.INSERT, output(g));
        if (g.stored) { // a group that opened and closed between two barriers was never written
          result.deleteByPk(g.key);
        }
        for (StateTable t : minmax) {
          if (t != null) { // COUNT(DISTINCT)'s values of the closed group
            for (Object[] row : t.scanPrefix(g.key)) {
              t.deleteByPk(Arrays.copyOf(row, g.key.length + 1));
            }
          }
        }
        forget(g);
      }
    }
    closing.clear();
    out.emitIfAny(builder.take());
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    if (windowKey < 0) {
      return;
    }
    int window = groupKeys[windowKey];
    if (watermark.column() == window && watermark.value() > closedBelow) {
      closedBelow = watermark.value();
      if (loaded) {
        closeWindows(out);
      } else {
        loadOpenWindows(out);
      }
    }
    for (int k = 0; k < groupKeys.length; k++) {
      if (groupKeys[k] == watermark.column()) {
        out.watermark(watermark.on(k));
      }
    }
  }

  private void apply(Group g, int c, Column arg, int row, int sign) {
    AggKind kind = kinds[c];
    if (kind == AggKind.COUNT_STAR) {
      g.counts[c] += sign;
      return;
    }
    if (arg.isNull(row)) {
      return;
    }
    switch (kind) {
      case COUNT -> g.counts[c] += sign;
      case SUM, AVG -> {
        g.counts[c] += sign;
        if (arg instanceof DoubleColumn d) {
          g.doubleSums[c] += sign * d.getDouble(row);
        } else if (arg instanceof LongColumn l) {
          g.longSums[c] += sign * l.getLong(row);
        } else {
          g.longSums[c] += sign * ((IntColumn) arg).getInt(row);
        }
      }
      default -> {
        if (appendOnlyInput && kind != AggKind.COUNT_DISTINCT) {
          keepExtreme(g, c, arg, row);
          return;
        }
        // The multiset changes once per value and epoch, at the barrier (flushMultisets).
        Object v = normalizeZero(arg.get(row));
        if (g.multisetDeltas[c] == null) {
          g.multisetDeltas[c] = new HashMap<>();
        }
        g.multisetDeltas[c].computeIfAbsent(v, x -> new long[1])[0] += sign;
        if (kind != AggKind.COUNT_DISTINCT && sign > 0 && !g.staleExtreme[c] && (g.extremes[c] == null || better(kind, v, g.extremes[c]))) {
          g.extremes[c] = v;
        }
      }
    }
  }

  /**
   * Applies a group's multiset changes of the epoch: each changed value's multiplicity is read and
   * written once. The extreme is stale if its multiplicity fell to zero (the value may also have
   * become the extreme during the epoch and been retracted since).
   */
  private void flushMultisets(Group g) {
    if (g.multisetDeltas == null) {
      return;
    }
    for (int c = 0; c < calls.length; c++) {
      Map<Object, long[]> deltas = g.multisetDeltas[c];
      if (deltas == null || deltas.isEmpty()) {
        continue;
      }
      Object extreme = normalizeZero(g.extremes[c]);
      for (Map.Entry<Object, long[]> e : deltas.entrySet()) {
        Object[] mmKey = Arrays.copyOf(g.key, g.key.length + 1);
        mmKey[g.key.length] = e.getKey();
        Object[] existing = minmax[c].get(mmKey);
        long delta = e.getValue()[0];
        long before = existing == null ? 0 : (Long) existing[existing.length - 1];
        long count = before + delta;
        if (delta != 0) {
          if (count > 0) {
            Object[] mmRow = Arrays.copyOf(mmKey, mmKey.length + 1);
            mmRow[mmKey.length] = count;
            minmax[c].put(mmRow);
          } else {
            minmax[c].deleteByPk(mmKey);
          }
        }
        if (kinds[c] == AggKind.COUNT_DISTINCT) {
          g.counts[c] += (count > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
        } else if (count <= 0 && e.getKey().equals(extreme)) {
          g.staleExtreme[c] = true;
        }
      }
      deltas.clear();
    }
  }

  /** MIN/MAX over an append-only input: the extreme only ever improves; integers compare unboxed. */
  private void keepExtreme(Group g, int c, Column arg, int row) {
    Object current = g.extremes[c];
    if (arg instanceof LongColumn l && current != null) {
      long v = l.getLong(row);
      long cur = (Long) current;
      if (kinds[c] == AggKind.MIN ? v < cur : v > cur) {
        g.extremes[c] = v;
      }
      return;
    }
    Object v = arg.get(row);
    if (current == null || better(kinds[c], v, current)) {
      g.extremes[c] = v;
    }
  }

  /** -0.0 and 0.0 are one key (as in the key encoding); the cache must not tell them apart. */
  static Object normalizeZero(Object v) {
    return v instanceof Double d && d == 0.0 ? (Object) 0.0 : v;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static boolean better(AggKind kind, Object v, Object current) {
    int cmp = ((Comparable) v).compareTo(current);
    return kind == AggKind.MIN ? cmp < 0 : cmp > 0;
  }

  /** The group of row {@code row}, from the cache or else loaded. */
  private Group group(Column[] keyColumns, int row) {
    if (integerKeys && probeOf(keyColumns, row, probe)) {
      Group g = cache.get(probe);
      if (g == null) {
        g = load(boxedKey(keyColumns, row));
        cache.put(probe, g);
      }
      return g;
    }
    Object[] key = boxedKey(keyColumns, row);
    List<Object> k = Arrays.asList(key);
    Group g = cache.get(k);
    if (g == null) {
      g = load(key);
      cache.put(k, g);
    }
    return g;
  }

  /** The group key of row {@code row}, boxed and normalized (shared with {@link SessionAggOp}). */
  static Object[] boxedKey(Column[] keyColumns, int row) {
    Object[] key = new Object[keyColumns.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = normalizeZero(keyColumns[k].get(row));
    }
    return key;
  }

  /**
   * Fills {@code probe} with the integer group key of {@code row} (key columns all BIGINT or INT);
   * false if a key column is null. Shared with {@link LocalAggOp}.
   */
  static boolean probeOf(Column[] keyColumns, int row, long[] probe) {
    for (int k = 0; k < keyColumns.length; k++) {
      Column c = keyColumns[k];
      if (c.isNull(row)) {
        return false;
      }
      probe[k] = c instanceof LongColumn l ? l.getLong(row) : ((IntColumn) c).getInt(row);
    }
    return true;
  }

  /** Puts a group in the cache under its key (as {@link #group} looks it up). */
  private void remember(Group g) {
    if (probeOfKey(g.key)) {
      cache.put(probe, g);
    } else {
      cache.put(Arrays.asList(g.key), g);
    }
  }

  /** Drops a group from the cache. */
  private void forget(Group g) {
    if (probeOfKey(g.key)) {
      cache.remove(probe);
    } else {
      cache.remove(Arrays.asList(g.key));
    }
  }

  /** Whether a group key is found in the long cache; if so, fills {@link #probe} with it. */
  private boolean probeOfKey(Object[] key) {
    return integerKeys && probeOfKey(key, probe);
  }

  /**
   * Fills {@code probe} with a boxed key of integers; false if one is null. Shared with {@link
   * SessionAggOp} (the boxed form of {@link #probeOf}).
   */
  static boolean probeOfKey(Object[] key, long[] probe) {
    for (int k = 0; k < key.length; k++) {
      if (key[k] == null) {
        return false;
      }
      probe[k] = ((Number) key[k]).longValue();
    }
    return true;
  }

  @Override
  public void close() {
    cache.clear(); // gives the budget back
  }

  /** Groups in the cache (for tests of eviction). */
  int cachedGroups() {
    return cache.size();
  }

  private void clearCache() {
    cache.clear();
  }

  /** A group not in the cache: its state row, or a new group (always, with windows closing: every open group is cached). */
  private Group load(Object[] key) {
    Group g = new Group(key);
    if (windowKey >= 0) {
      return opened(g);
    }
    Object[] state = result.get(key);
    if (state != null) {
      restore(g, state);
    }
    return g;
  }

  /** Sets a group's running state from its state row. */
  private void restore(Group g, Object[] state) {
    int p = g.key.length;
    g.rowCount = (Long) state[p++];
    for (int c = 0; c < calls.length; c++) {
      switch (kinds[c]) {
        case COUNT_STAR, COUNT, COUNT_DISTINCT -> g.counts[c] = (Long) state[p++];
        case SUM, AVG -> {
          Object s = state[p++];
          if (argTypes[c] == DataType.DOUBLE) {
            g.doubleSums[c] = s == null ? 0 : (Double) s;
          } else {
            g.longSums[c] = s == null ? 0 : (Long) s;
          }
          g.counts[c] = (Long) state[p++];
        }
        default -> g.extremes[c] = state[p++];
      }
    }
    g.emitted = true;
  }

  /**
   * Marks a group changed in this epoch, before its first change: emitting at barriers, it keeps
   * the row it emitted last until the barrier (a clean group keeps none, so millions of cached
   * groups hold no copy of their output).
   */
  private void touch(Group g) {
    if (!g.isDirty) {
      g.isDirty = true;
      g.generation = generation;
      dirty.add(g);
      if (windowKey < 0 && g.emitted) {
        g.lastOutput = output(g);
      }
    }
  }

  private Object[] output(Group g) {
    Object[] row = Arrays.copyOf(g.key, outTypes.length);
    for (int c = 0; c < calls.length; c++) {
      int p = g.key.length + c;
      switch (kinds[c]) {
        case COUNT_STAR, COUNT, COUNT_DISTINCT -> row[p] = g.counts[c];
        case SUM -> row[p] = g.counts[c] == 0 ? null : argTypes[c] == DataType.DOUBLE ? (Object) g.doubleSums[c] : (Object) g.longSums[c];
        case AVG -> row[p] = g.counts[c] == 0 ? null
            : (argTypes[c] == DataType.DOUBLE ? g.doubleSums[c] : (double) g.longSums[c]) / g.counts[c];
        default -> row[p] = g.extremes[c];
      }
    }
    return row;
  }

  private Object[] stateRow(Group g) {
    Object[] s = Arrays.copyOf(g.key, stateWidth);
    int p = g.key.length;
    s[p++] = g.rowCount;
    for (int c = 0; c < calls.length; c++) {
      switch (kinds[c]) {
        case COUNT_STAR, COUNT, COUNT_DISTINCT -> s[p++] = g.counts[c];
        case SUM, AVG -> {
          s[p++] = argTypes[c] == DataType.DOUBLE ? (Object) g.doubleSums[c] : (Object) g.longSums[c];
          s[p++] = g.counts[c];
        }
        default -> s[p++] = g.extremes[c];
      }
    }
    return s;
  }

  /**
   * A group as the next epoch may change it: one changed in the epoch of a held barrier and not
   * flushed yet is flushed first (its output and state belong to that epoch); one that flush
   * deleted starts again from nothing, under a new object in the cache.
   */
  private Group live(Group g, Emitter out) throws InterruptedException {
    if (!g.isDirty || g.generation == generation) {
      return g;
    }
    if (!flushGroup(g, out)) {
      return g;
    }
    Group fresh = new Group(g.key);
    remember(fresh);
    return fresh;
  }

  /**
   * Emits a changed group's change and writes its state (emitting at barriers); returns true if its
   * row count reached zero and it was deleted (and forgotten).
   */
  private boolean flushGroup(Group g, Emitter out) throws InterruptedException {
    g.isDirty = false;
    flushMultisets(g);
    for (int c = 0; g.staleExtreme != null && c < calls.length; c++) {
      if (g.staleExtreme[c]) {
        Object[] row = kinds[c] == AggKind.MIN ? minmax[c].firstInPrefix(g.key) : minmax[c].lastInPrefix(g.key);
        g.extremes[c] = row == null ? null : row[g.key.length];
        g.staleExtreme[c] = false;
      }
    }
    if (g.rowCount <= 0) {
      if (g.rowCount < 0) {
        throw new IllegalStateException("group " + Arrays.toString(g.key) + " has negative row count " + g.rowCount
            + ": a retraction without its insert");
      }
      if (g.lastOutput != null) {
        emit(out, Op.DELETE, g.lastOutput);
      }
      result.deleteByPk(g.key);
      forget(g);
      return true;
    }
    Object[] now = output(g);
    if (g.lastOutput == null) {
      emit(out, Op.INSERT, now);
    } else if (!Arrays.equals(now, g.lastOutput)) {
      emit(out, Op.UPDATE_DELETE, g.lastOutput);
      emit(out, Op.UPDATE_INSERT, now);
    }
    g.lastOutput = null;
    if (g.emitted) {
      result.putExisting(stateRow(g)); // loaded from state or written at an earlier barrier
    } else {
      g.emitted = true;
      result.put(stateRow(g));
    }
    return false;
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    if (sealed != null) {
      continueBarrier(out, true);
    }
    for (Group g : dirty) {
      if (windowKey >= 0) {
        g.isDirty = false;
        if (!g.closed) {
          flushMultisets(g);
          result.put(stateRow(g)); // emitted when its window closes
          g.stored = true;
        }
        continue;
      }
      flushGroup(g, out);
    }
    dirty.clear();
    finishBarrier(barrier, out);
  }

  /**
   * Emitting at barriers, without multisets: seals the epoch's changed groups and flushes them over
   * the next inputs ({@link #continueBarrier}, {@value #FLUSH_SLICE} a slice), so a barrier that
   * changed millions of groups does not stop the input for the time it takes to write them. A row
   * of the next epoch for a sealed group flushes that group first ({@link #live}). Cache eviction
   * waits for the end of the flush; it never evicts a group changed since (such a group was used
   * since the last ageing, so it is in the young generation).
   */
  @Override
  public boolean beginBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    if (windowKey >= 0 || shape.multisets || sealed != null) {
      onBarrier(barrier, out);
      return false;
    }
    sealed = dirty;
    dirty = new ArrayList<>();
    sealedAt = 0;
    sealedBarrier = barrier;
    generation++;
    return !continueBarrier(out, false);
  }

  @Override
  public boolean continueBarrier(Emitter out, boolean all) throws InterruptedException {
    if (sealed == null) {
      return true;
    }
    int sealedGeneration = generation - 1;
    int end = all ? sealed.size() : Math.min(sealed.size(), sealedAt + flushSlice);
    for (; sealedAt < end; sealedAt++) {
      Group g = sealed.get(sealedAt);
      if (g.isDirty && g.generation == sealedGeneration) { // else flushed already, when a row of the next epoch came
        flushGroup(g, out);
      }
    }
    if (sealedAt < sealed.size()) {
      return false;
    }
    Barrier b = sealedBarrier;
    sealed = null;
    sealedBarrier = null;
    finishBarrier(b, out);
    return true;
  }

  /** Emits what is left of the barrier's output, hands the epoch's writes to the store and ages the cache. */
  private void finishBarrier(Barrier barrier, Emitter out) throws InterruptedException {
    out.emitIfAny(builder.take());
    result.commit(barrier.prevEpoch());
    for (StateTable t : minmax) {
      if (t != null) {
        t.commit(barrier.prevEpoch());
      }
    }
    if (windowKey < 0) {
      cache.age(); // every group of the barrier's epoch is clean now: evicting one is safe
    }
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    result.updateVnodes(vnodes);
    for (StateTable t : minmax) {
      if (t != null) {
        t.updateVnodes(vnodes);
      }
    }
    if (windowKey >= 0) {
      clearCache(); // every open group of the new vnodes is loaded with the next row or watermark
      openWindows.clear();
      loaded = false;
    } else if (!old.isSubsetOf(vnodes)) {
      // Entries of lost vnodes go now, so none is stale if the vnode comes back after another actor
      // owned it; entries of kept vnodes stay valid (with none lost, all of them: nothing to look at).
      cache.retainKeys(result::owns, result::ownsIntegers);
    }
  }

  private void emit(Emitter out, Op op, Object[] row) throws InterruptedException {
    // An update pair must stay in one chunk: flush first if only one slot is left.
    if (op == Op.UPDATE_DELETE && builder.size() >= StreamChunk.DEFAULT_CAPACITY - 1) {
      out.emitIfAny(builder.take());
    }
    out.emitIfAny(builder.appendRow(op.code(), row));
  }
}
