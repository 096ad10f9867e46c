package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.SessionWindowNode;
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
 * Session windows ({@link SessionWindowNode}) over an append-only input. Per partition, the rows
 * sorted by time and the current sessions (start → last time) are held in memory, loaded from the
 * state table (which holds every row, keyed partition, time, stream key) the first time a row of the
 * partition arrives. A new row at time t joins every row whose time is less than the gap from t or
 * from a row already joined: that run of times is the row's new session, replacing the sessions
 * within it. Output is emitted at barriers (and before a session closes): each row changed in the
 * epoch is inserted with its session's window, or updated (an update pair) if the window it was
 * emitted with changed since. So a session of n rows growing within an epoch costs n rows of
 * output, not the n²/2 updates of emitting each extension as it happens; the views downstream,
 * which commit at barriers, see the same changes.
 *
 * <p>Closing: a session whose last time + gap is at most the watermark on the time column can take
 * no later row, so its rows leave state and memory (its output stays as emitted). Sessions are found
 * by an index of their closing times, built from the owned state at the first watermark after a
 * start or a vnode change and kept as sessions change (entries of sessions since merged or
 * extended are skipped). A partition whose sessions have all closed stays cached, empty, so a
 * returning key is not looked up in state, until the cache is cleared. Rows are written as keys the
 * state never held, so a session opening and closing within an epoch leaves the store nothing.
 * Without watermarks, state keeps every row. A row below the watermark is late and dropped (as
 * {@link SessionAggOp} drops it): it could belong to a session closed already, whose rows are gone.
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
  /** Closing time (last + gap) → (partition key, session start); null until the first watermark indexes the owned state. */
  private NavigableMap<Long, List<Object[]>> closing;
  private long closedBelow = Long.MIN_VALUE;

  /** One partition: its rows by time, and its sessions as first time → last time. */
  private static final class Partition {
    final Object[] key;
    final NavigableMap<Long, List<Entry>> rows = new TreeMap<>();
    final NavigableMap<Long, Long> sessions = new TreeMap<>();
    boolean dirty; // rows inserted or sessions changed since the last emission

    Partition(Object[] key) {
      this.key = key;
    }
  }

  /** A row and the session window it was last emitted with (none yet: {@code emitted} false). */
  private static final class Entry {
    final Object[] row;
    boolean emitted;
    long first;
    long last;

    Entry(Object[] row) {
      this.row = row;
    }
  }

  private final List<Partition> dirty = new ArrayList<>();

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    if (watermark.column() != timeColumn || watermark.value() <= closedBelow) {
      return;
    }
    closedBelow = watermark.value();
    if (closing == null) {
      closing = new TreeMap<>();
      java.util.Set<List<Object>> seen = new java.util.HashSet<>();
      for (Object[] row : table.scanOwned()) {
        Object[] key = keyOf(row);
        if (seen.add(Arrays.asList(key))) {
          Partition p = partition(key);
          p.sessions.forEach((first, last) -> indexSession(p, first, last));
        }
      }
    }
    SortedMap<Long, List<Object[]>> closed = closing.headMap(closedBelow, true);
    for (List<Object[]> sessions : closed.values()) {
      for (Object[] s : sessions) {
        Partition p = partition((Object[]) s[0]);
        long first = (Long) s[1];
        Long last = p.sessions.get(first);
        if (last == null || last + gap > closedBelow) {
          continue; // merged or extended since: indexed again under its new closing time
        }
        if (p.dirty) {
          emit(p, out); // its rows leave with the window they were last emitted with
        }
        p.sessions.remove(first);
        NavigableMap<Long, List<Entry>> rows = p.rows.subMap(first, true, last, true);
        for (List<Entry> rs : rows.values()) {
          for (Entry e : rs) {
            table.delete(e.row);
            cachedRows--;
          }
        }
        rows.clear();
        if (p.rows.isEmpty()) {
          cachedRows++; // kept, empty: the state holds none of its rows, so a returning key is not looked up there
        }
      }
    }
    closed.clear();
    out.emitIfAny(builder.take());
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
      if (row[timeColumn] == null || (Long) row[timeColumn] < closedBelow) {
        continue; // no time, no session; or late (below the watermark)
      }
      insert(partition(keyOf(row)), row);
    }
  }

  private void insert(Partition p, Object[] row) {
    long t = (Long) row[timeColumn];
    // The new session: the run of times less than the gap apart through t. Sessions are such maximal
    // runs, at least a gap apart, so t joins the one starting at or before it if within a gap of its
    // end, and the next one if that starts within a gap of t.
    long first = t;
    long last = t;
    Map.Entry<Long, Long> below = p.sessions.floorEntry(t);
    if (below != null && t - below.getValue() < gap) {
      first = below.getKey();
      last = Math.max(t, below.getValue());
    }
    Map.Entry<Long, Long> above = p.sessions.higherEntry(t);
    if (above != null && above.getKey() - last < gap) {
      last = above.getValue();
    }
    table.insertNew(row); // the pk holds the append-only input's stream key: never stored before
    cachedRows++;
    // The sessions it replaces lie within [first, last]; their rows get the new window when emitted.
    p.sessions.subMap(first, true, last, true).clear();
    p.sessions.put(first, last);
    indexSession(p, first, last);
    p.rows.computeIfAbsent(t, k -> new ArrayList<>(1)).add(new Entry(row));
    if (!p.dirty) {
      p.dirty = true;
      dirty.add(p);
    }
  }

  /** Emits the rows of {@code p} whose session window differs from the one they were emitted with. */
  private void emit(Partition p, Emitter out) throws InterruptedException {
    for (Map.Entry<Long, Long> s : p.sessions.entrySet()) {
      long first = s.getKey();
      long last = s.getValue();
      for (List<Entry> rows : p.rows.subMap(first, true, last, true).values()) {
        for (Entry e : rows) {
          if (e.emitted && e.first == first && e.last == last) {
            continue;
          }
          if (builder.size() >= StreamChunk.DEFAULT_CAPACITY - 1) {
            out.emitIfAny(builder.take()); // an update pair stays in one chunk
          }
          if (e.emitted) {
            out.emitIfAny(builder.appendRow(Op.UPDATE_DELETE.code(), windowed(e.row, e.first, e.last)));
            out.emitIfAny(builder.appendRow(Op.UPDATE_INSERT.code(), windowed(e.row, first, last)));
          } else {
            out.emitIfAny(builder.appendRow(Op.INSERT.code(), windowed(e.row, first, last)));
          }
          e.emitted = true;
          e.first = first;
          e.last = last;
        }
      }
    }
    p.dirty = false;
  }

  private Object[] windowed(Object[] row, long first, long last) {
    Object[] r = Arrays.copyOf(row, width + 2);
    r[width] = first;
    r[width + 1] = last + gap;
    return r;
  }

  private void indexSession(Partition p, long first, long last) {
    if (closing != null) {
      closing.computeIfAbsent(last + gap, x -> new ArrayList<>()).add(new Object[] {p.key, first});
    }
  }

  /** The partition key of an input row. */
  private Object[] keyOf(Object[] row) {
    Object[] key = new Object[partitionKeys.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = HashAggOp.normalizeZero(row[partitionKeys[k]]);
    }
    return key;
  }

  /** A partition by its key: cached, or loaded from state (its rows emitted with their sessions' windows, as at the last barrier). */
  private Partition partition(Object[] key) {
    List<Object> k = Arrays.asList(key);
    Partition p = partitions.get(k);
    if (p == null) {
      p = new Partition(key);
      Long first = null;
      Long last = null;
      for (Object[] stored : table.scanPrefix(key)) { // in time order: the time follows the keys in the pk
        long t = (Long) stored[timeColumn];
        p.rows.computeIfAbsent(t, x -> new ArrayList<>(1)).add(new Entry(stored));
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
      for (Map.Entry<Long, Long> s : p.sessions.entrySet()) {
        for (List<Entry> rs : p.rows.subMap(s.getKey(), true, s.getValue(), true).values()) {
          for (Entry e : rs) {
            e.emitted = true;
            e.first = s.getKey();
            e.last = s.getValue();
          }
        }
      }
      partitions.put(k, p);
    }
    return p;
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
    closing = null; // indexed again from the owned state at the next watermark
  }
}
