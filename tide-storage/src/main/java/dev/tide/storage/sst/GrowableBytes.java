package dev.tide.storage.sst;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** An append-only big-endian byte buffer with direct access to its array. Not thread-safe. */
final class GrowableBytes {
  private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private byte[] buf;
  private int size;

  GrowableBytes(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  int size() {
    return size;
  }

  /** Empties the buffer, keeping its capacity. */
  void reset() {
    size = 0;
  }

  /** The backing array; valid until the next append. */
  byte[] array() {
    return buf;
  }

  private void ensure(int extra) {
    int need = size + extra;
    if (need < 0) {
      throw new IllegalStateException("SST larger than 2 GiB; lower the target file size");
    }
    if (need > buf.length) {
      long grown = Math.max(need, (long) buf.length * 2);
      buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, grown));
    }
  }

  void putByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  void putInt(int v) {
    ensure(4);
    INT_BE.set(buf, size, v);
    size += 4;
  }

  void putLong(long v) {
    ensure(8);
    LONG_BE.set(buf, size, v);
    size += 8;
  }

  void putVarint(int v) {
    ensure(5);
    while ((v & ~0x7f) != 0) {
      buf[size++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  void putBytes(byte[] src, int off, int len) {
    ensure(len);
    System.arraycopy(src, off, buf, size, len);
    size += len;
  }
}
