package dev.tide.stream.state;

import dev.tide.common.codec.KeyEncoder;
import dev.tide.common.codec.ValueCodec;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import dev.tide.storage.StateStore;
import dev.tide.storage.SortedWriteBatch;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.plan.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An actor's view of one state table: rows keyed {@code table_id | vnode | memcomparable(pk)} with
 * {@code vnode = hash(dist key columns)}, restricted to the vnodes the actor owns. Writes of the
 * current epoch stay in a local memtable and go to the node's {@link StateStore} at the barrier
 * ({@link #commit}); reads merge the memtable over the store.
 *
 * <p>Invariant: the actor only reads and writes vnodes in its bitmap; a write elsewhere is a bug
 * and throws. Thread-safety: confined to the actor thread.
 */
public final class StateTable {
  private static final byte[] TOMBSTONE = new byte[0];

  private final int tableId;
  private final DataType[] types;
  private final int[] pk;
  private final DataType[] pkTypes;
  private final int[] distKey;
  private final int[] distInPk;
  private final int vnodeCount;
  private final StateStore store;
  private final VnodeHasher hasher = new VnodeHasher();
  private final KeyEncoder enc = new KeyEncoder();
  private final TreeMap<byte[], byte[]> memtable = new TreeMap<>(Arrays::compareUnsigned);
  private VnodeBitmap vnodes;

  public StateTable(TableCatalog table, StateStore store, VnodeBitmap vnodes, int vnodeCount) {
    this.tableId = table.getTableId();
    this.types = Types.types(table.getColumnsList());
    this.pk = Types.ints(table.getPkList());
    this.pkTypes = new DataType[pk.length];
    for (int i = 0; i < pk.length; i++) {
      pkTypes[i] = types[pk[i]];
    }
    this.distKey = Types.ints(table.getDistKeyList());
    this.distInPk = new int[distKey.length];
    for (int i = 0; i < distKey.length; i++) {
      distInPk[i] = indexOf(pk, distKey[i]);
      if (distInPk[i] < 0) {
        throw new IllegalArgumentException("table " + tableId + ": dist key column " + distKey[i] + " is not in the pk " + Arrays.toString(pk));
      }
    }
    this.vnodeCount = distKey.length == 0 ? 1 : vnodeCount;
    this.store = store;
    this.vnodes = vnodes;
  }

  private static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }

  public int tableId() {
    return tableId;
  }

  public DataType[] types() {
    return types;
  }

  public VnodeBitmap vnodes() {
    return vnodes;
  }

  /** Changes the owned vnodes (a reschedule); the memtable must be empty (call at a barrier, after commit). */
  public void updateVnodes(VnodeBitmap newVnodes) {
    if (!memtable.isEmpty()) {
      throw new IllegalStateException("table " + tableId + ": vnodes changed with uncommitted writes");
    }
    this.vnodes = newVnodes;
  }

  private int vnodeOfPk(Object[] pkValues) {
    if (distKey.length == 0) {
      return 0;
    }
    Object[] d = new Object[distInPk.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = pkValues[distInPk[i]];
    }
    int v = hasher.vnode(d, vnodeCount);
    if (vnodeCount > 1 && !vnodes.contains(v)) {
      throw new IllegalStateException("table " + tableId + ": key " + Arrays.toString(pkValues) + " is in vnode " + v
          + ", which this actor does not own (" + vnodes + ")");
    }
    return v;
  }

  private byte[] encodeKey(Object[] pkValues, int count) {
    enc.startStateKey(tableId, vnodeOfPk(pkValues));
    for (int i = 0; i < count; i++) {
      enc.put(pkTypes[i], pkValues[i]);
    }
    return enc.toByteArray();
  }

  /** The pk values of a full row. */
  public Object[] pkOf(Object[] row) {
    Object[] k = new Object[pk.length];
    for (int i = 0; i < pk.length; i++) {
      k[i] = row[pk[i]];
    }
    return k;
  }

  /** The row stored under these pk values, or null. */
  public Object[] get(Object[] pkValues) {
    byte[] key = encodeKey(pkValues, pk.length);
    byte[] v = memtable.get(key);
    if (v == null) {
      Optional<byte[]> stored = store.get(key);
      return stored.map(b -> ValueCodec.decode(types, b)).orElse(null);
    }
    return v == TOMBSTONE ? null : ValueCodec.decode(types, v);
  }

  /** Inserts or overwrites the row under its pk. */
  public void put(Object[] row) {
    memtable.put(encodeKey(pkOf(row), pk.length), ValueCodec.encode(types, row));
  }

  public void delete(Object[] row) {
    deleteByPk(pkOf(row));
  }

  public void deleteByPk(Object[] pkValues) {
    memtable.put(encodeKey(pkValues, pk.length), TOMBSTONE);
  }

  /**
   * Rows whose pk starts with {@code prefix} (which must include every dist key column), ascending.
   * The iterator reads a snapshot of the memtable; do not write the table while iterating.
   */
  public List<Object[]> scanPrefix(Object[] prefix) {
    byte[] from = encodeKey(Arrays.copyOf(prefix, pk.length), prefix.length);
    byte[] to = prefixEnd(from);
    List<Object[]> out = new ArrayList<>();
    NavigableMap<byte[], byte[]> mem = to == null ? memtable.tailMap(from, true) : memtable.subMap(from, true, to, false);
    try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
      mergeInto(mem.entrySet().iterator(), it, out);
    }
    return out;
  }

  /** The greatest row under the prefix, or null. */
  public Object[] lastInPrefix(Object[] prefix) {
    byte[] from = encodeKey(Arrays.copyOf(prefix, pk.length), prefix.length);
    byte[] to = prefixEnd(from);
    NavigableMap<byte[], byte[]> mem = to == null ? memtable.tailMap(from, true) : memtable.subMap(from, true, to, false);
    // Walk down from the top: the newest of memtable/store at each key decides.
    byte[] upper = to;
    while (true) {
      Map.Entry<byte[], byte[]> m = upper == null ? mem.lastEntry() : mem.headMap(upper, false).lastEntry();
      Optional<KeyValue> s = store.last(from, upper);
      byte[] mk = m == null ? null : m.getKey();
      byte[] sk = s.map(KeyValue::key).orElse(null);
      if (mk == null && sk == null) {
        return null;
      }
      int cmp = mk == null ? -1 : sk == null ? 1 : Arrays.compareUnsigned(mk, sk);
      if (cmp >= 0) {
        if (m.getValue() != TOMBSTONE) {
          return ValueCodec.decode(types, m.getValue());
        }
        upper = mk;
      } else {
        return ValueCodec.decode(types, s.get().value());
      }
    }
  }

  /** The smallest row under the prefix, or null. */
  public Object[] firstInPrefix(Object[] prefix) {
    List<Object[]> rows = new ArrayList<>(1);
    byte[] from = encodeKey(Arrays.copyOf(prefix, pk.length), prefix.length);
    byte[] to = prefixEnd(from);
    NavigableMap<byte[], byte[]> mem = to == null ? memtable.tailMap(from, true) : memtable.subMap(from, true, to, false);
    try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
      Iterator<Map.Entry<byte[], byte[]>> mi = mem.entrySet().iterator();
      mergeFirst(mi, it, rows);
    }
    return rows.isEmpty() ? null : rows.get(0);
  }

  private void mergeFirst(Iterator<Map.Entry<byte[], byte[]>> mem, Iterator<KeyValue> st, List<Object[]> out) {
    Merge merge = new Merge(mem, st);
    while (merge.hasNext()) {
      byte[] v = merge.next();
      if (v != null) {
        out.add(ValueCodec.decode(types, v));
        return;
      }
    }
  }

  private void mergeInto(Iterator<Map.Entry<byte[], byte[]>> mem, Iterator<KeyValue> st, List<Object[]> out) {
    Merge merge = new Merge(mem, st);
    while (merge.hasNext()) {
      byte[] v = merge.next();
      if (v != null) {
        out.add(ValueCodec.decode(types, v));
      }
    }
  }

  /** Merges memtable entries (newer) over store entries; yields values, null for a memtable tombstone. */
  private static final class Merge {
    private final Iterator<Map.Entry<byte[], byte[]>> mem;
    private final Iterator<KeyValue> st;
    private Map.Entry<byte[], byte[]> m;
    private KeyValue s;

    Merge(Iterator<Map.Entry<byte[], byte[]>> mem, Iterator<KeyValue> st) {
      this.mem = mem;
      this.st = st;
      m = mem.hasNext() ? mem.next() : null;
      s = st.hasNext() ? st.next() : null;
    }

    boolean hasNext() {
      return m != null || s != null;
    }

    byte[] next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      int cmp = m == null ? 1 : s == null ? -1 : Arrays.compareUnsigned(m.getKey(), s.key());
      byte[] out;
      if (cmp <= 0) {
        out = m.getValue() == TOMBSTONE ? null : m.getValue();
        if (cmp == 0) {
          s = st.hasNext() ? st.next() : null;
        }
        m = mem.hasNext() ? mem.next() : null;
      } else {
        out = s.value();
        s = st.hasNext() ? st.next() : null;
      }
      return out;
    }
  }

  /** The smallest key greater than every key starting with {@code prefix}, or null if none exists. */
  static byte[] prefixEnd(byte[] prefix) {
    byte[] end = Arrays.copyOf(prefix, prefix.length);
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xFF) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return null;
  }

  /** Hands this epoch's writes to the store; call at the barrier that ends {@code epoch}. */
  public void commit(long epoch) {
    if (memtable.isEmpty()) {
      return;
    }
    byte[][] keys = new byte[memtable.size()][];
    byte[][] values = new byte[keys.length][];
    int i = 0;
    for (Map.Entry<byte[], byte[]> e : memtable.entrySet()) {
      keys[i] = e.getKey();
      values[i] = e.getValue() == TOMBSTONE ? null : e.getValue();
      i++;
    }
    memtable.clear();
    store.ingest(epoch, SortedWriteBatch.ofSorted(keys, values));
  }

  // ---- the column path: rows of a chunk whose columns are the table's columns, without boxing ----

  /** Vnodes of every row of a chunk laid out like this table (dist key = column indices). */
  public int[] vnodes(StreamChunk chunk, int[] out) {
    if (distKey.length == 0) {
      int[] zeros = out != null && out.length >= chunk.size() ? out : new int[chunk.size()];
      Arrays.fill(zeros, 0, chunk.size(), 0);
      return zeros;
    }
    return hasher.vnodes(chunk, distKey, vnodeCount, out);
  }

  private byte[] encodeKey(StreamChunk chunk, int row, int vnode) {
    if (vnodeCount > 1 && !vnodes.contains(vnode)) {
      throw new IllegalStateException("table " + tableId + ": row " + Arrays.toString(chunk.row(row)) + " is in vnode " + vnode
          + ", which this actor does not own (" + vnodes + ")");
    }
    enc.startStateKey(tableId, vnode);
    for (int p : pk) {
      enc.put(chunk.column(p), row);
    }
    return enc.toByteArray();
  }

  /** Upserts row {@code row} of the chunk (in vnode {@code vnode}). */
  public void put(StreamChunk chunk, int row, int vnode) {
    memtable.put(encodeKey(chunk, row, vnode), ValueCodec.encode(chunk.columns(), row));
  }

  /** Deletes the row with row {@code row}'s primary key. */
  public void delete(StreamChunk chunk, int row, int vnode) {
    memtable.put(encodeKey(chunk, row, vnode), TOMBSTONE);
  }

  /** Every committed row of a table (all vnodes), ascending by key: for reading materialized views. */
  public static List<Object[]> scanAll(StateStore store, TableCatalog table) {
    DataType[] types = Types.types(table.getColumnsList());
    byte[] from = new KeyEncoder().startStateKey(table.getTableId(), 0).toByteArray();
    byte[] to = new KeyEncoder().startStateKey(table.getTableId() + 1, 0).toByteArray();
    List<Object[]> out = new ArrayList<>();
    try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
      while (it.hasNext()) {
        out.add(ValueCodec.decode(types, it.next().value()));
      }
    }
    return out;
  }
}
