package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Unbounded inner equi-join, both sides in state tables keyed (join key, stream key). A row of one
 * side updates its table and is joined at once with the other side's rows of the same key; output
 * rows carry the input row's op (update pairs become delete + insert, as a pair's matches differ).
 * Null keys never match and are not stored.
 *
 * <p>Cache: per side, join key → rows, filled on first lookup and kept in step with writes; cleared
 * when it grows past its bound. The state tables' key filter answers lookups of join keys without
 * rows (the common case of a new key) without a store read.
 */
public final class HashJoinOp implements Operator {
  private static final int MAX_CACHED_KEYS = 100_000;

  private final int[][] keys = new int[2][];
  private final DataType[][] keyTypes = new DataType[2][];
  private final int[] tableIds = new int[2];
  private final ActorContext ctx;
  private final StateTable[] tables = new StateTable[2];
  private final List<Map<List<Object>, KeyRows>> caches = List.of(new HashMap<>(), new HashMap<>());
  private final ChunkBuilder builder;
  private final int leftWidth;

  public HashJoinOp(HashJoinNode node, DataType[] leftTypes, DataType[] rightTypes, ActorContext ctx) {
    this.ctx = ctx;
    keys[0] = node.getLeftKeysList().stream().mapToInt(Integer::intValue).toArray();
    keys[1] = node.getRightKeysList().stream().mapToInt(Integer::intValue).toArray();
    DataType[][] types = {leftTypes, rightTypes};
    for (int s = 0; s < 2; s++) {
      keyTypes[s] = new DataType[keys[s].length];
      for (int i = 0; i < keys[s].length; i++) {
        keyTypes[s][i] = types[s][keys[s][i]];
      }
    }
    tableIds[0] = node.getLeftTableId();
    tableIds[1] = node.getRightTableId();
    DataType[] out = Arrays.copyOf(leftTypes, leftTypes.length + rightTypes.length);
    System.arraycopy(rightTypes, 0, out, leftTypes.length, rightTypes.length);
    this.leftWidth = leftTypes.length;
    this.builder = new ChunkBuilder(out, StreamChunk.DEFAULT_CAPACITY);
  }

  @Override
  public void open() {
    for (int s = 0; s < 2; s++) {
      tables[s] = ctx.table(tableIds[s]);
      tables[s].filterKeys(Math.min(keys[s].length, tables[s].pkColumns()));
    }
  }

  /** One join key's rows of one side; a row is found by its pk in constant time once there are many. */
  private static final class KeyRows {
    private static final int INDEX_FROM = 8;

    final List<Object[]> rows;
    private Map<List<Object>, Integer> positions; // pk -> index in rows, once rows outgrow a linear search

    KeyRows(List<Object[]> rows, StateTable table) {
      this.rows = rows;
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

    void add(Object[] row, StateTable table) {
      rows.add(row);
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
    for (int i = 0; i < chunk.size(); i++) {
      if (!chunk.visible(i)) {
        continue;
      }
      Object[] row = chunk.row(i);
      Object[] key = new Object[keys[side].length];
      boolean nullKey = false;
      for (int k = 0; k < key.length; k++) {
        key[k] = normalize(row[keys[side][k]]);
        nullKey |= key[k] == null;
      }
      if (nullKey) {
        continue;
      }
      byte op = Op.normalize(chunk.op(i));
      boolean insert = Op.isInsert(op);
      KeyRows own = cached(side, key);
      if (insert) {
        tables[side].put(row);
        if (own != null) {
          own.add(row, tables[side]);
        }
      } else {
        tables[side].delete(row);
        if (own != null) {
          own.remove(row, tables[side]);
        }
      }
      for (Object[] match : rows(other, key).rows) {
        Object[] l = side == 0 ? row : match;
        Object[] r = side == 0 ? match : row;
        Object[] joined = Arrays.copyOf(l, leftWidth + r.length);
        System.arraycopy(r, 0, joined, leftWidth, r.length);
        StreamChunk full = builder.appendRow(op, joined);
        if (full != null) {
          out.emit(full);
        }
      }
    }
    StreamChunk rest = builder.take();
    if (rest != null) {
      out.emit(rest);
    }
  }

  /** Join keys compare across INT and BIGINT (integers widen to Long), and -0.0 equals 0.0. */
  private static Object normalize(Object v) {
    return v instanceof Integer i ? (Object) i.longValue() : HashAggOp.normalizeZero(v);
  }

  private KeyRows cached(int side, Object[] key) {
    return caches.get(side).get(Arrays.asList(key));
  }

  private KeyRows rows(int side, Object[] key) {
    List<Object> k = Arrays.asList(key);
    KeyRows rows = caches.get(side).get(k);
    if (rows == null) {
      Object[] prefix = new Object[key.length];
      for (int i = 0; i < key.length; i++) {
        prefix[i] = keyTypes[side][i] == DataType.INT ? (Object) ((Long) key[i]).intValue() : key[i];
      }
      rows = new KeyRows(new ArrayList<>(tables[side].scanPrefix(prefix)), tables[side]);
      caches.get(side).put(k, rows);
    }
    return rows;
  }

  @Override
  public void updateVnodes(VnodeBitmap old, VnodeBitmap vnodes) {
    tables[0].updateVnodes(vnodes);
    tables[1].updateVnodes(vnodes);
    if (!vnodes.isSubsetOf(old)) {
      caches.forEach(Map::clear); // entries of regained vnodes may be stale
    }
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    tables[0].commit(barrier.prevEpoch());
    tables[1].commit(barrier.prevEpoch());
    for (Map<List<Object>, KeyRows> c : caches) {
      if (c.size() > MAX_CACHED_KEYS) {
        c.clear();
      }
    }
  }
}
