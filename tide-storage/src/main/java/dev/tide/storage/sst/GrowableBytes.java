package dev.tide.storage.sst;

import java.util.Arrays;

/** An append-only big-endian byte buffer with direct access to its array. Not thread-safe. */
final class GrowableBytes {
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
    buf[size] = (byte) (v >>> 24);
    buf[size + 1] = (byte) (v >>> 16);
    buf[size + 2] = (byte) (v >>> 8);
    buf[size + 3] = (byte) v;
    size += 4;
  }

  void putLong(long v) {
    putInt((int) (v >>> 32));
    putInt((int) v);
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
