package dev.tide.stream.state;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.codec.KeyEncoder;
import dev.tide.common.codec.ValueCodec;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.CloseableIterator;
import dev.tide.storage.KeyValue;
import dev.tide.storage.SortedWriteBatch;
import dev.tide.storage.StateStore;
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

/**
 * An actor's view of one state table: rows keyed {@code table_id | vnode | memcomparable(pk)} with
 * {@code vnode = hash(dist key columns)}, restricted to the vnodes the actor owns. Writes of the
 * current epoch stay in a local {@link Memtable} and go to the node's {@link StateStore} at the
 * barrier ({@link #commit}); reads merge the memtable over the store.
 *
 * <h2>Key filter</h2>
 *
 * Operators that look up keys that mostly do not exist (a new group, a join key without matches)
 * turn on the key filter ({@link #filterKeys}) before their first write. The table then keeps a
 * fingerprint of every key it writes (and of its first {@code prefixColumns} pk columns), and
 * checks each owned vnode once, at its first access: if the store holds nothing of the vnode, every
 * row of it is written through this table, so a key without a fingerprint does not exist and its
 * read skips the memtable and the store. First access is after the actor's first barrier waited
 * for the epoch before it to commit ({@code waitCommitted}), so the check sees every row earlier
 * owners wrote. Vnodes gained by {@link #updateVnodes} are checked again; when the fingerprints
 * reach {@link #MAX_FINGERPRINTS} the filter turns off (reads go to the store, as without it).
 *
 * <p>Invariant: the actor only reads and writes vnodes in its bitmap; a write elsewhere is a bug
 * and throws. Thread-safety: confined to the actor thread.
 */
public final class StateTable {
  /** Fingerprints one table keeps at most (4 bytes each, at most half the slots used). */
  static final int MAX_FINGERPRINTS = 1 << 22;

  private static final byte UNCHECKED = 0;
  private static final byte FRESH = 1;
  private static final byte STALE = 2;
  private static final byte[] TOMBSTONE = Memtable.TOMBSTONE;

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
  /** The value of a row being written (from a chunk, or boxed without strings), before the memtable copies it. */
  private byte[] valueScratch;
  private final boolean fixedWidth; // no VARCHAR column: a boxed row encodes into valueScratch
  private final Memtable memtable;
  private boolean writesOnce; // see writesOncePerEpoch
  private VnodeBitmap vnodes;

  // Key filter: null fingerprints = off. vnodeState is indexed by vnode.
  private KeyFingerprints written;
  private byte[] vnodeState;
  private int filterPrefixColumns;
  // Set by encodeKey: the key's vnode and the length of its first filterPrefixColumns pk columns.
  private int keyVnode;
  private int keyPrefixLength;

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
    this.fixedWidth = !Arrays.asList(types).contains(DataType.VARCHAR);
    this.valueScratch = new byte[Math.max(64, fixedWidth ? ValueCodec.maxFixedLength(types) : 0)];
    this.memtable = new Memtable(this.vnodeCount);
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

  /** Number of primary key columns. */
  public int pkColumns() {
    return pk.length;
  }

  /**
   * Turns on the key filter (see the class doc) for full keys and for prefixes of
   * {@code prefixColumns} pk columns (0 for none); call before the first write.
   */
  public void filterKeys(int prefixColumns) {
    if (prefixColumns < 0 || prefixColumns > pk.length) {
      throw new IllegalArgumentException("table " + tableId + ": key filter prefix of " + prefixColumns
          + " columns must be in 0.." + pk.length + " (the pk's columns)");
    }
    if (!memtable.isEmpty() || written != null) {
      throw new IllegalStateException("table " + tableId + ": the key filter must be turned on once, before the first write");
    }
    written = new KeyFingerprints(MAX_FINGERPRINTS);
    vnodeState = new byte[vnodeCount];
    filterPrefixColumns = prefixColumns;
  }

  /**
   * The owner's promise: between two commits it writes each key at most once and seldom reads this
   * table after its first write (an aggregation's result table, written at barriers, read only for
   * groups not in its cache). Writes then skip the memtable's hash index ({@link Memtable#append});
   * a read indexes what was appended since the last one, and a broken promise costs memory until
   * the next read or commit, never a wrong result.
   */
  public void writesOncePerEpoch() {
    writesOnce = true;
  }

  /** Changes the owned vnodes (a reschedule); the memtable must be empty (call at a barrier, after commit). */
  public void updateVnodes(VnodeBitmap newVnodes) {
    if (!memtable.isEmpty()) {
      throw new IllegalStateException("table " + tableId + ": vnodes changed with uncommitted writes");
    }
    if (vnodeState != null) {
      for (int v = 0; v < vnodeCount; v++) {
        if (vnodeCount == 1 || !vnodes.contains(v)) {
          vnodeState[v] = UNCHECKED; // gained (or lost): another actor may have written it meanwhile
        }
      }
    }
    this.vnodes = newVnodes;
  }

  /**
   * Whether this actor owns the vnode of a key given by its leading pk values (at least those that
   * hold the distribution key): what a cache keyed by them may keep after {@link #updateVnodes}.
   *
   * @throws IllegalArgumentException if the prefix does not cover the distribution key
   */
  public boolean owns(Object[] pkPrefix) {
    for (int p : distInPk) {
      if (p >= pkPrefix.length) {
        throw new IllegalArgumentException("table " + tableId + ": a key prefix of " + pkPrefix.length
            + " values does not cover the distribution key (pk position " + p + ")");
      }
    }
    return vnodeCount == 1 || distKey.length == 0 || vnodes.contains(vnodeOf(pkPrefix));
  }

  /**
   * As {@link #owns(Object[])} for leading pk values given as longs (a cache's integer key): the
   * distribution key's columns must be INT, BIGINT or TIMESTAMP and none null. Not boxed.
   *
   * @throws IllegalArgumentException if the prefix does not cover the distribution key or a column of it is not an integer
   */
  public boolean ownsIntegers(long[] pkPrefix) {
    for (int p : distInPk) {
      if (p >= pkPrefix.length) {
        throw new IllegalArgumentException("table " + tableId + ": a key prefix of " + pkPrefix.length
            + " values does not cover the distribution key (pk position " + p + ")");
      }
      DataType t = pkTypes[p];
      if (t != DataType.INT && t != DataType.BIGINT && t != DataType.TIMESTAMP) {
        throw new IllegalArgumentException("table " + tableId + ": distribution key column at pk position " + p + " is " + t
            + ", not an integer: ask owns() with boxed values");
      }
    }
    return vnodeCount == 1 || distKey.length == 0 || vnodes.contains(hasher.vnode(pkPrefix, distInPk, vnodeCount));
  }

  private int vnodeOf(Object[] pkValues) {
    if (distKey.length == 0) {
      return 0;
    }
    Object[] d = new Object[distInPk.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = pkValues[distInPk[i]];
    }
    return hasher.vnode(d, vnodeCount);
  }

  private int vnodeOfPk(Object[] pkValues) {
    if (distKey.length == 0) {
      return 0;
    }
    int v = vnodeOf(pkValues);
    if (vnodeCount > 1 && !vnodes.contains(v)) {
      throw new IllegalStateException("table " + tableId + ": key " + Arrays.toString(pkValues) + " is in vnode " + v
          + ", which this actor does not own (" + vnodes + ")");
    }
    return v;
  }

  private byte[] encodeKey(Object[] pkValues, int count) {
    encodeKeyInPlace(pkValues, count);
    return enc.toByteArray();
  }

  /** Encodes the key of the first {@code count} pk values into {@link #enc}. */
  private void encodeKeyInPlace(Object[] pkValues, int count) {
    keyVnode = vnodeOfPk(pkValues);
    enc.startStateKey(tableId, keyVnode);
    keyPrefixLength = enc.length();
    for (int i = 0; i < count; i++) {
      enc.put(pkTypes[i], pkValues[i]);
      if (i + 1 == filterPrefixColumns) {
        keyPrefixLength = enc.length();
      }
    }
  }

  /**
   * Whether the key filter proves that no key of vnode {@code vnode} starts with {@code key[0, len)}
   * (a whole key, or a prefix of {@link #filterPrefixColumns} columns).
   */
  private boolean provenAbsent(int vnode, int keyHash) {
    return written != null && fresh(vnode) && !written.mightContain(keyHash);
  }

  /** The first key of {@code vnode}'s rows (and the end of the vnode before it). */
  private byte[] vnodeStart(int vnode) {
    return new KeyEncoder().startStateKey(tableId, vnode).toByteArray();
  }

  /** Whether the store held nothing of {@code vnode} when this table first touched it. */
  private boolean fresh(int vnode) {
    byte s = vnodeState[vnode];
    if (s == UNCHECKED) {
      try (CloseableIterator<KeyValue> it = store.scan(vnodeStart(vnode), vnodeStart(vnode + 1))) {
        s = it.hasNext() ? STALE : FRESH;
      }
      vnodeState[vnode] = s;
    }
    return s == FRESH;
  }

  /**
   * Writes {@code value} at the key just encoded (in {@link #enc}), recording the key (and its
   * filtered prefix) with the key filter. The key is hashed once, for the filter and the memtable.
   */
  private void writeEncodedKey(byte[] value, int valueLength) {
    writeEncodedKey(value, valueLength, false);
  }

  /** Writes {@link #enc}'s key; {@code isNew}: the store holds no version of it ({@link Memtable#putNew}). */
  private void writeEncodedKey(byte[] value, int valueLength, boolean isNew) {
    byte[] key = enc.buffer();
    int len = enc.length();
    if (written == null) {
      write(key, len, KeyHash.of(key, len), value, valueLength, isNew);
      return;
    }
    fresh(keyVnode); // the first touch of a vnode checks the store before its rows land there
    int hash;
    boolean added;
    if (filterPrefixColumns > 0 && filterPrefixColumns < pk.length) {
      long hashes = KeyHash.ofPrefixAndWhole(key, keyPrefixLength, len);
      hash = (int) hashes;
      added = written.add(hash) && written.add((int) (hashes >>> 32));
    } else {
      hash = KeyHash.of(key, len);
      added = written.add(hash);
    }
    if (!added) {
      written = null; // full: from now on reads go to the store
      vnodeState = null;
    }
    write(key, len, hash, value, valueLength, isNew);
  }

  private void write(byte[] key, int len, int hash, byte[] value, int valueLength, boolean isNew) {
    if (writesOnce && !isNew) {
      memtable.append(key, len, value, valueLength);
    } else if (isNew) {
      memtable.putNew(key, len, hash, value, valueLength);
    } else {
      memtable.put(key, len, hash, value, valueLength);
    }
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
    encodeKeyInPlace(pkValues, pk.length);
    int hash = KeyHash.of(enc.buffer(), enc.length());
    if (provenAbsent(keyVnode, hash)) {
      return null;
    }
    byte[] v = memtable.get(enc.buffer(), enc.length(), hash);
    if (v == null) {
      Optional<byte[]> stored = store.get(enc.toByteArray());
      return stored.map(b -> ValueCodec.decode(types, b)).orElse(null);
    }
    return v == TOMBSTONE ? null : ValueCodec.decode(types, v);
  }

  /** Inserts or overwrites the row under its pk. */
  public void put(Object[] row) {
    encodeKeyInPlace(pkOf(row), pk.length);
    int valueLength = encodeValue(row); // before reading valueScratch: it may be replaced
    writeEncodedKey(valueScratch, valueLength);
  }

  /** Encodes a boxed row's value into {@link #valueScratch} (in place when it has no strings); returns its length. */
  private int encodeValue(Object[] row) {
    if (fixedWidth) {
      return ValueCodec.encodeFixed(types, row, valueScratch);
    }
    byte[] value = ValueCodec.encode(types, row);
    if (value.length > valueScratch.length) {
      valueScratch = value;
    } else {
      System.arraycopy(value, 0, valueScratch, 0, value.length);
    }
    return value.length;
  }

  /**
   * As {@link #put(Object[])} for a primary key this table already read a row of or wrote (the
   * caller's guarantee): the key filter holds its fingerprint, so none is added. That saves a
   * random access into the filter per write for tables whose rows are rewritten every epoch.
   */
  public void putExisting(Object[] row) {
    encodeKeyInPlace(pkOf(row), pk.length);
    int valueLength = encodeValue(row);
    writeExistingKey(valueScratch, valueLength);
  }

  /** Writes {@link #enc}'s key, which the key filter holds already (see {@link #putExisting(Object[])}). */
  private void writeExistingKey(byte[] value, int valueLength) {
    if (written != null) {
      fresh(keyVnode);
    }
    byte[] key = enc.buffer();
    int len = enc.length();
    write(key, len, writesOnce ? 0 : KeyHash.of(key, len), value, valueLength, false); // appended writes need no hash
  }

  /**
   * Inserts {@code row} under a primary key that has never been committed (the caller's guarantee,
   * as for {@link #insertNew(StreamChunk, int, int)}): deleted within the same epoch, it leaves no tombstone.
   */
  public void insertNew(Object[] row) {
    encodeKeyInPlace(pkOf(row), pk.length);
    int valueLength = encodeValue(row);
    writeEncodedKey(valueScratch, valueLength, true);
  }

  public void delete(Object[] row) {
    deleteByPk(pkOf(row));
  }

  public void deleteByPk(Object[] pkValues) {
    encodeKeyInPlace(pkValues, pk.length);
    deleteEncodedKey();
  }

  private void deleteEncodedKey() {
    if (writesOnce) {
      memtable.append(enc.buffer(), enc.length(), TOMBSTONE, 0);
    } else {
      memtable.put(enc.buffer(), enc.length(), KeyHash.of(enc.buffer(), enc.length()), TOMBSTONE, 0);
    }
  }

  /** The encoded start of the rows under {@code prefix}, or null if the key filter proves there are none. */
  private byte[] prefixStart(Object[] prefix) {
    byte[] from = encodeKey(Arrays.copyOf(prefix, pk.length), prefix.length);
    boolean filtered = prefix.length == pk.length || (filterPrefixColumns > 0 && prefix.length == filterPrefixColumns);
    return filtered && written != null && provenAbsent(keyVnode, KeyHash.of(from, from.length)) ? null : from;
  }

  /**
   * Whether the key filter proves that no row's pk starts with {@code prefix} (the whole pk or the
   * filter's prefix columns); false when it cannot tell.
   */
  public boolean provenEmpty(Object[] prefix) {
    return prefixStart(prefix) == null;
  }

  /**
   * Rows whose pk starts with {@code prefix} (which must include every dist key column), ascending.
   * The iterator reads a snapshot of the memtable; do not write the table while iterating. A prefix
   * of the whole pk is one point read: it skips the store's files whose key range or filter excludes
   * the key, where a range scan opens a cursor on each.
   */
  public List<Object[]> scanPrefix(Object[] prefix) {
    List<Object[]> out = new ArrayList<>();
    if (prefix.length == pk.length) {
      Object[] row = get(prefix);
      if (row != null) {
        out.add(row);
      }
      return out;
    }
    byte[] from = prefixStart(prefix);
    if (from == null) {
      return out;
    }
    byte[] to = prefixEnd(from);
    NavigableMap<byte[], Integer> mem = memRange(from, to);
    try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
      mergeInto(mem.entrySet().iterator(), it, out);
    }
    return out;
  }

  /**
   * Every row of the owned vnodes (memtable over store), ascending by key within each vnode: an
   * operator's reload of all it owns. Do not write the table while this runs.
   */
  public List<Object[]> scanOwned() {
    List<Object[]> out = new ArrayList<>();
    int[] owned = vnodeCount == 1 ? new int[] {0} : vnodes.toArray();
    for (int v : owned) {
      byte[] from = vnodeStart(v);
      byte[] to = vnodeStart(v + 1);
      try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
        mergeInto(memRange(from, to).entrySet().iterator(), it, out);
      }
    }
    return out;
  }

  private NavigableMap<byte[], Integer> memRange(byte[] from, byte[] to) {
    return memtable.range(from, to);
  }

  /** The greatest row under the prefix, or null. */
  public Object[] lastInPrefix(Object[] prefix) {
    byte[] from = prefixStart(prefix);
    if (from == null) {
      return null;
    }
    byte[] to = prefixEnd(from);
    NavigableMap<byte[], Integer> mem = memRange(from, to);
    // Walk down from the top: the newest of memtable/store at each key decides.
    byte[] upper = to;
    while (true) {
      Map.Entry<byte[], Integer> m = upper == null ? mem.lastEntry() : mem.headMap(upper, false).lastEntry();
      Optional<KeyValue> s = store.last(from, upper);
      byte[] mk = m == null ? null : m.getKey();
      byte[] sk = s.map(KeyValue::key).orElse(null);
      if (mk == null && sk == null) {
        return null;
      }
      int cmp = mk == null ? -1 : sk == null ? 1 : Arrays.compareUnsigned(mk, sk);
      if (cmp >= 0) {
        byte[] value = memtable.valueAt(m.getValue());
        if (value != TOMBSTONE) {
          return ValueCodec.decode(types, value);
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
    byte[] from = prefixStart(prefix);
    if (from == null) {
      return null;
    }
    byte[] to = prefixEnd(from);
    NavigableMap<byte[], Integer> mem = memRange(from, to);
    try (CloseableIterator<KeyValue> it = store.scan(from, to)) {
      Iterator<Map.Entry<byte[], Integer>> mi = mem.entrySet().iterator();
      mergeFirst(mi, it, rows);
    }
    return rows.isEmpty() ? null : rows.get(0);
  }

  private void mergeFirst(Iterator<Map.Entry<byte[], Integer>> mem, Iterator<KeyValue> st, List<Object[]> out) {
    Merge merge = new Merge(memtable, mem, st);
    while (merge.hasNext()) {
      byte[] v = merge.next();
      if (v != null) {
        out.add(ValueCodec.decode(types, v));
        return;
      }
    }
  }

  private void mergeInto(Iterator<Map.Entry<byte[], Integer>> mem, Iterator<KeyValue> st, List<Object[]> out) {
    Merge merge = new Merge(memtable, mem, st);
    while (merge.hasNext()) {
      byte[] v = merge.next();
      if (v != null) {
        out.add(ValueCodec.decode(types, v));
      }
    }
  }

  /** Merges memtable entries (newer) over store entries; yields values, null for a memtable tombstone. */
  private static final class Merge {
    private final Memtable memtable;
    private final Iterator<Map.Entry<byte[], Integer>> mem;
    private final Iterator<KeyValue> st;
    private Map.Entry<byte[], Integer> m;
    private KeyValue s;

    Merge(Memtable memtable, Iterator<Map.Entry<byte[], Integer>> mem, Iterator<KeyValue> st) {
      this.memtable = memtable;
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
        byte[] value = memtable.valueAt(m.getValue());
        out = value == TOMBSTONE ? null : value;
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
    SortedWriteBatch batch = memtable.drain();
    if (!batch.isEmpty()) { // empty when every write was a new key deleted again
      store.ingest(epoch, batch);
    }
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

  /** Encodes the key of row {@code row} of the chunk into {@link #enc}. */
  private void encodeKeyInPlace(StreamChunk chunk, int row, int vnode) {
    if (vnodeCount > 1 && !vnodes.contains(vnode)) {
      throw new IllegalStateException("table " + tableId + ": row " + Arrays.toString(chunk.row(row)) + " is in vnode " + vnode
          + ", which this actor does not own (" + vnodes + ")");
    }
    keyVnode = vnode;
    enc.startStateKey(tableId, vnode);
    keyPrefixLength = enc.length();
    for (int i = 0; i < pk.length; i++) {
      enc.put(chunk.column(pk[i]), row);
      if (i + 1 == filterPrefixColumns) {
        keyPrefixLength = enc.length();
      }
    }
  }

  /** Whether rows {@code a} and {@code b} of {@code chunk} (laid out like this table) have equal primary keys. */
  public boolean samePk(StreamChunk chunk, int a, int b) {
    for (int c : pk) {
      Column col = chunk.column(c);
      boolean nullA = col.isNull(a);
      if (nullA != col.isNull(b)) {
        return false;
      }
      if (nullA) {
        continue;
      }
      boolean equal = col instanceof LongColumn l ? l.getLong(a) == l.getLong(b) : java.util.Objects.equals(col.get(a), col.get(b));
      if (!equal) {
        return false;
      }
    }
    return true;
  }

  /** Upserts row {@code row} of the chunk (in vnode {@code vnode}). */
  public void put(StreamChunk chunk, int row, int vnode) {
    write(chunk, row, vnode, false);
  }

  /**
   * Inserts row {@code row} of the chunk (in vnode {@code vnode}) under a primary key that has never
   * been committed (the caller's guarantee: e.g. a row of an append-only input whose pk holds its
   * stream key). Deleted again within the same epoch, the row leaves no tombstone.
   */
  public void insertNew(StreamChunk chunk, int row, int vnode) {
    write(chunk, row, vnode, true);
  }

  /** As {@link #put(StreamChunk, int, int)} for a key the table read a row of or wrote (see {@link #putExisting(Object[])}). */
  public void putExisting(StreamChunk chunk, int row, int vnode) {
    int valueLength = encodeInPlace(chunk, row, vnode); // before reading valueScratch: it may grow
    writeExistingKey(valueScratch, valueLength);
  }

  private void write(StreamChunk chunk, int row, int vnode, boolean isNew) {
    int valueLength = encodeInPlace(chunk, row, vnode); // before reading valueScratch: it may grow
    writeEncodedKey(valueScratch, valueLength, isNew);
  }

  /** Encodes row {@code row}'s key into {@link #enc} and its value into {@link #valueScratch}; returns the value's length. */
  private int encodeInPlace(StreamChunk chunk, int row, int vnode) {
    encodeKeyInPlace(chunk, row, vnode);
    Column[] columns = chunk.columns();
    int valueLength = ValueCodec.encodedLength(columns, row);
    if (valueScratch.length < valueLength) {
      valueScratch = new byte[Math.max(valueLength, valueScratch.length * 2)];
    }
    ValueCodec.encode(columns, row, valueScratch);
    return valueLength;
  }

  /** Deletes the row with row {@code row}'s primary key. */
  public void delete(StreamChunk chunk, int row, int vnode) {
    encodeKeyInPlace(chunk, row, vnode);
    deleteEncodedKey();
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
