package dev.tide.stream.exchange;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.ColumnBuilder;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import java.util.Random;

/**
 * Random chunks for exchange tests: every column type, nulls at various densities, edge values
 * (NaN, -0.0, extremes, empty and non-ASCII strings), random ops, optional visibility masks, column
 * arrays longer than the chunk, and string columns whose data does not start at offset 0.
 */
final class RandomChunks {
  private static final DataType[] TYPES = DataType.values();
  private static final String[] STRINGS = {"", "a", "bid", "ü", "日本語", "😀x", "line\nbreak", "\u0000nul"};
  private static final double[] DOUBLES =
      {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE};

  private final Random rnd;

  RandomChunks(long seed) {
    this.rnd = new Random(seed);
  }

  Random random() {
    return rnd;
  }

  DataType[] randomTypes() {
    DataType[] types = new DataType[rnd.nextInt(7)];
    for (int i = 0; i < types.length; i++) {
      types[i] = TYPES[rnd.nextInt(TYPES.length)];
    }
    return types;
  }

  StreamChunk chunk() {
    return chunk(randomTypes(), rnd.nextInt(10) == 0 ? 0 : 1 + rnd.nextInt(rnd.nextBoolean() ? 16 : 1100));
  }

  StreamChunk chunk(DataType[] types, int rows) {
    double[] nullRate = new double[types.length];
    for (int c = 0; c < types.length; c++) {
      nullRate[c] = new double[] {0, 0, 0.1, 0.5, 1}[rnd.nextInt(5)];
    }
    // Capacity above the row count leaves column arrays longer than the chunk, as in production.
    ChunkBuilder b = new ChunkBuilder(types, rows + 1 + rnd.nextInt(40));
    Object[] row = new Object[types.length];
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < types.length; c++) {
        row[c] = rnd.nextDouble() < nullRate[c] ? null : value(types[c]);
      }
      b.appendRow((byte) rnd.nextInt(4), row);
    }
    StreamChunk chunk = rows == 0 ? empty(types) : b.take();
    if (rnd.nextInt(4) == 0) {
      chunk = chunk.withColumns(shiftStrings(chunk.columns()));
    }
    return switch (rnd.nextInt(4)) {
      case 0 -> chunk.withVisibility(mask(rows, rnd.nextDouble()));
      case 1 -> chunk.withVisibility(mask(rows, rnd.nextBoolean() ? 0 : 1));
      default -> chunk;
    };
  }

  private static StreamChunk empty(DataType[] types) {
    Column[] cols = new Column[types.length];
    for (int c = 0; c < cols.length; c++) {
      cols[c] = ColumnBuilder.create(types[c], 4).build();
    }
    return new StreamChunk(new byte[0], cols, 0, null);
  }

  private boolean[] mask(int rows, double p) {
    boolean[] vis = new boolean[rows];
    for (int i = 0; i < rows; i++) {
      vis[i] = rnd.nextDouble() < p;
    }
    return vis;
  }

  /** Same values, but string data starts after some unrelated bytes. */
  private Column[] shiftStrings(Column[] cols) {
    Column[] out = cols.clone();
    for (int c = 0; c < cols.length; c++) {
      if (cols[c] instanceof StringColumn s && s.size() > 0) {
        int shift = 1 + rnd.nextInt(9);
        int n = s.size();
        int end = s.offset(n - 1) + s.length(n - 1);
        byte[] data = new byte[shift + end];
        System.arraycopy(s.data(), 0, data, shift, end);
        int[] offsets = new int[n + 1];
        for (int i = 0; i < n; i++) {
          offsets[i] = s.offset(i) + shift;
        }
        offsets[n] = end + shift;
        boolean[] nulls = null;
        if (s.hasNulls()) {
          nulls = new boolean[n];
          for (int i = 0; i < n; i++) {
            nulls[i] = s.isNull(i);
          }
        }
        out[c] = new StringColumn(data, offsets, n, nulls);
      }
    }
    return out;
  }

  Object value(DataType type) {
    return switch (type) {
      case BOOLEAN -> rnd.nextBoolean();
      case INT -> rnd.nextInt(8) == 0 ? new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1}[rnd.nextInt(4)] : rnd.nextInt();
      case BIGINT, TIMESTAMP -> rnd.nextInt(8) == 0 ? new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1}[rnd.nextInt(4)]
          : rnd.nextLong();
      case DOUBLE -> rnd.nextInt(6) == 0
          ? DOUBLES[rnd.nextInt(DOUBLES.length)]
          : rnd.nextGaussian() * 1e6;
      case VARCHAR -> string();
    };
  }

  private String string() {
    if (rnd.nextInt(3) == 0) {
      return STRINGS[rnd.nextInt(STRINGS.length)];
    }
    int len = rnd.nextInt(50) == 0 ? 1000 + rnd.nextInt(3000) : rnd.nextInt(40);
    StringBuilder sb = new StringBuilder(len);
    for (int i = 0; i < len; i++) {
      sb.append((char) (rnd.nextInt(10) == 0 ? 0x80 + rnd.nextInt(0x2000) : 'a' + rnd.nextInt(26)));
    }
    return sb.toString();
  }
}
