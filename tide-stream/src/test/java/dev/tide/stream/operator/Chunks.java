package dev.tide.stream.operator;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Hand-built chunks and checks of changelog well-formedness, shared by operator and actor tests. */
public final class Chunks {
  private Chunks() {}

  /** A row with its op, as a test writes it. */
  public record Row(Op op, Object... values) {}

  public static Row ins(Object... v) {
    return new Row(Op.INSERT, v);
  }

  public static Row del(Object... v) {
    return new Row(Op.DELETE, v);
  }

  public static Row ud(Object... v) {
    return new Row(Op.UPDATE_DELETE, v);
  }

  public static Row ui(Object... v) {
    return new Row(Op.UPDATE_INSERT, v);
  }

  public static StreamChunk chunk(DataType[] types, Row... rows) {
    return chunk(types, List.of(rows));
  }

  public static StreamChunk chunk(DataType[] types, List<Row> rows) {
    ChunkBuilder b = new ChunkBuilder(types, rows.size() + 1);
    for (Row r : rows) {
      b.appendRow(r.op().code(), r.values());
    }
    return b.take();
  }

  /** Visible rows of a chunk with their ops. */
  public static List<Row> visible(StreamChunk c) {
    List<Row> out = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      if (c.visible(i)) {
        out.add(new Row(Op.of(c.op(i)), c.row(i)));
      }
    }
    return out;
  }

  /**
   * Every visible UpdateDelete is directly followed (physically, and visible) by an UpdateInsert,
   * and every visible UpdateInsert directly preceded by a visible UpdateDelete.
   */
  public static boolean wellFormed(StreamChunk c) {
    for (int i = 0; i < c.size(); i++) {
      if (!c.visible(i)) {
        continue;
      }
      if (c.op(i) == Op.UPDATE_DELETE.code()
          && (i + 1 >= c.size() || !c.visible(i + 1) || c.op(i + 1) != Op.UPDATE_INSERT.code())) {
        return false;
      }
      if (c.op(i) == Op.UPDATE_INSERT.code()
          && (i == 0 || !c.visible(i - 1) || c.op(i - 1) != Op.UPDATE_DELETE.code())) {
        return false;
      }
    }
    return true;
  }

  /** A random well-formed op sequence of length n: inserts, deletes and adjacent update pairs. */
  public static List<Op> randomOps(Random rnd, int n) {
    List<Op> ops = new ArrayList<>();
    while (ops.size() < n) {
      int k = rnd.nextInt(3);
      if (k == 2 && ops.size() + 2 <= n) {
        ops.add(Op.UPDATE_DELETE);
        ops.add(Op.UPDATE_INSERT);
      } else {
        ops.add(k == 1 ? Op.DELETE : Op.INSERT);
      }
    }
    return ops;
  }

  /** A row as {@code "OP [values]"}, for readable assertions on output order. */
  public static String text(Row r) {
    return r.op() + " " + Arrays.toString(r.values());
  }

  /** The visible rows of {@code out}, in order, as {@link #text}. */
  public static List<String> texts(List<StreamChunk> out) {
    return out.stream().flatMap(c -> visible(c).stream()).map(Chunks::text).toList();
  }

  /** {@code rows} as {@link #text}. */
  public static List<String> texts(Row... rows) {
    return Arrays.stream(rows).map(Chunks::text).toList();
  }
}
