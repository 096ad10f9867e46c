package dev.tide.stream.operator;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A value per group, found by the group key columns of a row: keys whose columns are all integers
 * (INT, BIGINT, TIMESTAMP) and not null by their long values, without boxing; other keys by their
 * boxed values (-0.0 as 0.0, as in the key encoding). Remembers the last integer key found, as
 * windowed input brings long runs of one key. Thread-safety: confined to one thread.
 */
final class GroupIndex<V> {
  private final LongKeyMap<V> longs; // null unless every key column is an integer
  private final Map<List<Object>, V> boxed = new HashMap<>();
  private final long[] probe;
  private final long[] lastProbe;
  private V last;
  private List<Object> missedBoxedKey; // the key of the last get when it was boxed, else null

  GroupIndex(DataType[] keyTypes) {
    boolean integers = true;
    for (DataType t : keyTypes) {
      integers &= t == DataType.INT || t.isLongBacked();
    }
    this.longs = integers ? new LongKeyMap<>(keyTypes.length) : null;
    this.probe = new long[keyTypes.length];
    this.lastProbe = new long[keyTypes.length];
  }

  /** The value of row {@code row}'s group, or null; {@link #put} then adds one under that group. */
  V get(Column[] keys, int row) {
    if (longs != null && HashAggOp.probeOf(keys, row, probe)) {
      missedBoxedKey = null;
      if (last != null && Arrays.equals(probe, lastProbe)) {
        return last;
      }
      V v = longs.get(probe);
      if (v != null) {
        remember(v);
      }
      return v;
    }
    List<Object> key = Arrays.asList(key(keys, row));
    V v = boxed.get(key);
    missedBoxedKey = v == null ? key : null;
    return v;
  }

  /** Adds {@code value} under the group of the last {@link #get}, which found none. */
  void put(V value) {
    if (missedBoxedKey != null) {
      boxed.put(missedBoxedKey, value);
      missedBoxedKey = null;
    } else {
      longs.put(probe, value);
      remember(value);
    }
  }

  private void remember(V v) {
    System.arraycopy(probe, 0, lastProbe, 0, probe.length);
    last = v;
  }

  int size() {
    return boxed.size() + (longs == null ? 0 : longs.size());
  }

  void clear() {
    boxed.clear();
    if (longs != null) {
      longs.clear();
    }
    last = null;
  }

  /** The types of the group key columns {@code keyColumns} of an input of {@code inputTypes}. */
  static DataType[] keyTypes(DataType[] inputTypes, int[] keyColumns) {
    DataType[] types = new DataType[keyColumns.length];
    for (int k = 0; k < types.length; k++) {
      types[k] = inputTypes[keyColumns[k]];
    }
    return types;
  }

  /** The group key columns {@code keyColumns} of {@code chunk}. */
  static Column[] keyColumns(StreamChunk chunk, int[] keyColumns) {
    Column[] keys = new Column[keyColumns.length];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = chunk.column(keyColumns[k]);
    }
    return keys;
  }

  /** Row {@code row}'s group key as boxed values, as state tables take them. */
  static Object[] key(Column[] keys, int row) {
    Object[] key = new Object[keys.length];
    for (int k = 0; k < key.length; k++) {
      key[k] = HashAggOp.normalizeZero(keys[k].get(row));
    }
    return key;
  }
}
