package dev.tide.stream.exchange;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import dev.tide.proto.exchange.ExchangeRequest;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Watermark;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The wire form of exchange messages: a {@link StreamChunk} as one compact little-endian byte layout
 * (columns as raw arrays, never per-row objects), a {@link Barrier} as the {@code tide.stream.Barrier}
 * proto, a {@link Watermark} as its column and value.
 *
 * <p>Visibility is <em>applied</em>: only visible rows are encoded, so a chunk that a hash
 * dispatcher masked for one output costs only that output's rows on the wire; the decoded chunk has
 * no visibility mask. Ops travel unchanged (an update pair the dispatcher split is already
 * normalized in the ops it gives).
 *
 * <pre>
 * chunk   := version:u8(=1) rows:i32 columns:i32 ops:u8[rows] column*
 * column  := type:u8(DataType ordinal) hasNulls:u8 [nullBits] values
 * nullBits:= ceil(rows/8) bytes, bit (i % 8) of byte (i / 8) set = row i is null
 * values  := BIGINT, TIMESTAMP: i64[rows] | INT: i32[rows] | DOUBLE: f64 raw bits[rows]
 *          | BOOLEAN: ceil(rows/8) bytes of bits
 *          | VARCHAR: dataBytes:i32 endOffsets:i32[rows] data:u8[dataBytes]   (row i spans
 *            [end(i-1), end(i)), end(-1) = 0; a null row is empty)
 * </pre>
 *
 * Values of null rows are carried as they are (the column's contract leaves them unspecified).
 * Thread-safety: stateless.
 */
public final class ChunkCodec {
  static final byte VERSION = 1;
  private static final DataType[] TYPES = DataType.values();

  private ChunkCodec() {}

  // ---------------------------------------------------------------- messages

  /** The request carrying one channel message: a {@link StreamChunk}, a {@link Barrier} or a {@link Watermark}. */
  public static ExchangeRequest toRequest(Object message) {
    if (message instanceof StreamChunk c) {
      return ExchangeRequest.newBuilder().setChunk(UnsafeByteOperations.unsafeWrap(encode(c))).build();
    }
    if (message instanceof Barrier b) {
      return ExchangeRequest.newBuilder().setBarrier(toProto(b)).build();
    }
    if (message instanceof Watermark w) {
      return ExchangeRequest.newBuilder()
          .setWatermark(dev.tide.proto.exchange.Watermark.newBuilder().setColumn(w.column()).setValue(w.value())).build();
    }
    throw new IllegalArgumentException("exchange cannot send a " + (message == null ? "null" : message.getClass().getName())
        + ": expected a StreamChunk, a Barrier or a Watermark");
  }

  /** The channel message a data request carries. */
  public static Object fromRequest(ExchangeRequest request) {
    return switch (request.getKindCase()) {
      case CHUNK -> decode(request.getChunk());
      case BARRIER -> Barrier.of(request.getBarrier());
      case WATERMARK -> new Watermark(request.getWatermark().getColumn(), request.getWatermark().getValue());
      default -> throw new IllegalArgumentException("expected a chunk, barrier or watermark message, got " + request.getKindCase());
    };
  }

  /**
   * The proto of a barrier. {@code checkpoint} is not kept by {@link Barrier}, so it travels as
   * false; everything the actor-side barrier holds (epochs, mutation, inject time, committed epoch) round-trips.
   */
  public static dev.tide.proto.stream.Barrier toProto(Barrier b) {
    dev.tide.proto.stream.Barrier.Builder p = dev.tide.proto.stream.Barrier.newBuilder()
        .setCurrEpoch(b.currEpoch()).setPrevEpoch(b.prevEpoch()).setInjectTimeMs(b.injectTimeMs()).setCommittedEpoch(b.committedEpoch());
    if (b.mutation() != null) {
      p.setMutation(b.mutation());
    }
    return p.build();
  }

  // ---------------------------------------------------------------- chunks

  /** The chunk's visible rows in the layout above. */
  public static byte[] encode(StreamChunk chunk) {
    int[] sel = selection(chunk);
    int n = sel == null ? chunk.size() : sel.length;
    byte[] out = new byte[encodedSize(chunk, sel, n)];
    ByteBuffer buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    buf.put(VERSION).putInt(n).putInt(chunk.columnCount());
    byte[] ops = chunk.ops();
    if (sel == null) {
      buf.put(ops, 0, n);
    } else {
      for (int i = 0; i < n; i++) {
        buf.put(ops[sel[i]]);
      }
    }
    for (Column c : chunk.columns()) {
      buf.put((byte) c.type().ordinal());
      buf.put((byte) (c.hasNulls() ? 1 : 0));
      if (c.hasNulls()) {
        putNullBits(buf, c, sel, n);
      }
      putValues(buf, c, sel, n);
    }
    if (buf.hasRemaining()) {
      throw new IllegalStateException("chunk encoding sized " + out.length + " bytes but wrote " + buf.position());
    }
    return out;
  }

  public static StreamChunk decode(ByteString bytes) {
    return decode(bytes.asReadOnlyByteBuffer());
  }

  public static StreamChunk decode(byte[] bytes) {
    return decode(ByteBuffer.wrap(bytes));
  }

  /**
   * The chunk encoded in {@code in}'s remaining bytes (all of them), every row visible.
   *
   * @throws IllegalArgumentException if the bytes are not a well-formed encoding
   */
  public static StreamChunk decode(ByteBuffer in) {
    ByteBuffer buf = in.slice().order(ByteOrder.LITTLE_ENDIAN);
    try {
      byte version = buf.get();
      if (version != VERSION) {
        throw malformed("format version " + version + ", expected " + VERSION);
      }
      int n = buf.getInt();
      int k = buf.getInt();
      // Checked before allocating: a corrupt count must not allocate beyond what the bytes can hold.
      if (n < 0 || k < 0 || n > buf.remaining() || k > buf.remaining() / 2) {
        throw malformed(n + " rows, " + k + " columns in " + buf.remaining() + " bytes");
      }
      byte[] ops = new byte[n];
      buf.get(ops);
      for (int i = 0; i < n; i++) {
        if (ops[i] < 0 || ops[i] > 3) {
          throw malformed("op code " + ops[i] + " at row " + i);
        }
      }
      Column[] cols = new Column[k];
      for (int c = 0; c < k; c++) {
        cols[c] = getColumn(buf, n, c);
      }
      if (buf.hasRemaining()) {
        throw malformed(buf.remaining() + " trailing bytes");
      }
      return new StreamChunk(ops, cols, n, null);
    } catch (BufferUnderflowException e) {
      throw malformed("truncated");
    }
  }

  private static IllegalArgumentException malformed(String what) {
    return new IllegalArgumentException("malformed chunk encoding: " + what);
  }

  /** Indices of visible rows, or null when every row is visible. */
  private static int[] selection(StreamChunk chunk) {
    boolean[] vis = chunk.visibility();
    if (vis == null) {
      return null;
    }
    int size = chunk.size();
    int[] sel = new int[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (vis[i]) {
        sel[n++] = i;
      }
    }
    return n == size ? null : java.util.Arrays.copyOf(sel, n);
  }

  private static int encodedSize(StreamChunk chunk, int[] sel, int n) {
    long size = 1 + 4 + 4 + n;
    int bitBytes = (n + 7) >>> 3;
    for (Column c : chunk.columns()) {
      size += 2;
      if (c.hasNulls()) {
        size += bitBytes;
      }
      size += switch (c.type()) {
        case BIGINT, TIMESTAMP, DOUBLE -> 8L * n;
        case INT -> 4L * n;
        case BOOLEAN -> bitBytes;
        case VARCHAR -> 4 + 4L * n + stringBytes((StringColumn) c, sel, n);
      };
    }
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("chunk of " + n + " rows encodes to " + size + " bytes, above the 2 GiB limit");
    }
    return (int) size;
  }

  private static long stringBytes(StringColumn c, int[] sel, int n) {
    if (sel == null) {
      return n == 0 ? 0 : c.offset(n - 1) + c.length(n - 1) - c.offset(0);
    }
    long total = 0;
    for (int i = 0; i < n; i++) {
      total += c.length(sel[i]);
    }
    return total;
  }

  private static void putNullBits(ByteBuffer buf, Column c, int[] sel, int n) {
    for (int base = 0; base < n; base += 8) {
      int b = 0;
      int end = Math.min(8, n - base);
      for (int j = 0; j < end; j++) {
        if (c.isNull(sel == null ? base + j : sel[base + j])) {
          b |= 1 << j;
        }
      }
      buf.put((byte) b);
    }
  }

  private static void putBits(ByteBuffer buf, boolean[] bits, int[] sel, int n) {
    for (int base = 0; base < n; base += 8) {
      int b = 0;
      int end = Math.min(8, n - base);
      for (int j = 0; j < end; j++) {
        int row = sel == null ? base + j : sel[base + j];
        if (bits[row]) {
          b |= 1 << j;
        }
      }
      buf.put((byte) b);
    }
  }

  private static boolean[] getBits(ByteBuffer buf, int n) {
    boolean[] bits = new boolean[n];
    for (int base = 0; base < n; base += 8) {
      int b = buf.get();
      int end = Math.min(8, n - base);
      for (int j = 0; j < end; j++) {
        bits[base + j] = (b & (1 << j)) != 0;
      }
    }
    return bits;
  }

  private static void putValues(ByteBuffer buf, Column c, int[] sel, int n) {
    // Sealed hierarchy; pattern-matching switch is not final in Java 17, hence the chain.
    if (c instanceof LongColumn l) {
      long[] v = l.values();
      if (sel == null) {
        buf.asLongBuffer().put(v, 0, n);
        buf.position(buf.position() + 8 * n);
      } else {
        for (int i = 0; i < n; i++) {
          buf.putLong(v[sel[i]]);
        }
      }
    } else if (c instanceof DoubleColumn d) {
      double[] v = d.values();
      if (sel == null) {
        buf.asDoubleBuffer().put(v, 0, n);
        buf.position(buf.position() + 8 * n);
      } else {
        for (int i = 0; i < n; i++) {
          buf.putDouble(v[sel[i]]);
        }
      }
    } else if (c instanceof IntColumn ic) {
      int[] v = ic.values();
      if (sel == null) {
        buf.asIntBuffer().put(v, 0, n);
        buf.position(buf.position() + 4 * n);
      } else {
        for (int i = 0; i < n; i++) {
          buf.putInt(v[sel[i]]);
        }
      }
    } else if (c instanceof BoolColumn b) {
      putBits(buf, b.values(), sel, n);
    } else {
      putStrings(buf, (StringColumn) c, sel, n);
    }
  }

  private static void putStrings(ByteBuffer buf, StringColumn s, int[] sel, int n) {
    byte[] data = s.data();
    int total = (int) stringBytes(s, sel, n);
    buf.putInt(total);
    if (sel == null) {
      int base = n == 0 ? 0 : s.offset(0);
      for (int i = 0; i < n; i++) {
        buf.putInt(s.offset(i) + s.length(i) - base);
      }
      buf.put(data, base, total);
    } else {
      int end = 0;
      for (int i = 0; i < n; i++) {
        end += s.length(sel[i]);
        buf.putInt(end);
      }
      for (int i = 0; i < n; i++) {
        int r = sel[i];
        buf.put(data, s.offset(r), s.length(r));
      }
    }
  }

  private static Column getColumn(ByteBuffer buf, int n, int index) {
    int t = buf.get();
    if (t < 0 || t >= TYPES.length) {
      throw malformed("type code " + t + " of column " + index);
    }
    DataType type = TYPES[t];
    int hasNulls = buf.get();
    if (hasNulls != 0 && hasNulls != 1) {
      throw malformed("null flag " + hasNulls + " of column " + index);
    }
    boolean[] nulls = hasNulls == 1 ? getBits(buf, n) : null;
    return switch (type) {
      case BIGINT, TIMESTAMP -> {
        long[] v = new long[n];
        buf.asLongBuffer().get(v);
        buf.position(buf.position() + 8 * n);
        yield new LongColumn(type, v, n, nulls);
      }
      case DOUBLE -> {
        double[] v = new double[n];
        buf.asDoubleBuffer().get(v);
        buf.position(buf.position() + 8 * n);
        yield new DoubleColumn(v, n, nulls);
      }
      case INT -> {
        int[] v = new int[n];
        buf.asIntBuffer().get(v);
        buf.position(buf.position() + 4 * n);
        yield new IntColumn(v, n, nulls);
      }
      case BOOLEAN -> new BoolColumn(getBits(buf, n), n, nulls);
      case VARCHAR -> {
        int total = buf.getInt();
        if (total < 0 || total > buf.remaining()) {
          throw malformed(total + " string bytes in column " + index + ", " + buf.remaining() + " left");
        }
        int[] offsets = new int[n + 1];
        buf.asIntBuffer().get(offsets, 1, n);
        buf.position(buf.position() + 4 * n);
        for (int i = 0; i < n; i++) {
          if (offsets[i + 1] < offsets[i]) {
            throw malformed("string offsets decrease at row " + i + " of column " + index);
          }
        }
        if (offsets[n] != total) {
          throw malformed("string offsets end at " + offsets[n] + ", expected " + total + " in column " + index);
        }
        byte[] data = new byte[total];
        buf.get(data);
        yield new StringColumn(data, offsets, n, nulls);
      }
    };
  }
}
