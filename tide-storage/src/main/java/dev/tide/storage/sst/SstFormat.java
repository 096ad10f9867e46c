package dev.tide.storage.sst;

import java.util.zip.CRC32C;

/** Constants and small codecs of the SST format (see the package documentation). */
final class SstFormat {
  static final long MAGIC = 0x54494445_53535431L; // "TIDESST1"
  static final int FORMAT_VERSION = 1;
  static final int FOOTER_BYTES = 48;
  static final int CHECKSUM_BYTES = 4;
  static final byte KIND_PUT = 0;
  static final byte KIND_DELETE = 1;
  /** Fixed bytes of an entry besides its two varints: kind and epoch. */
  static final int ENTRY_FIXED_BYTES = 1 + 8;

  private SstFormat() {}

  static int crc32c(byte[] a, int off, int len) {
    CRC32C crc = new CRC32C();
    crc.update(a, off, len);
    return (int) crc.getValue();
  }

  static int getInt(byte[] a, int off) {
    return ((a[off] & 0xff) << 24) | ((a[off + 1] & 0xff) << 16) | ((a[off + 2] & 0xff) << 8)
        | (a[off + 3] & 0xff);
  }

  static long getLong(byte[] a, int off) {
    return ((long) getInt(a, off) << 32) | (getInt(a, off + 4) & 0xffffffffL);
  }

  /**
   * Reads a varint at {@code pos[0]} not beyond {@code limit}, advancing {@code pos[0]}.
   *
   * @return the value, or -1 if it is malformed, negative or runs past {@code limit}
   */
  static int getVarint(byte[] a, int[] pos, int limit) {
    int p = pos[0];
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (p >= limit) {
        return -1;
      }
      int b = a[p++];
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        pos[0] = p;
        return result < 0 ? -1 : result;
      }
    }
    return -1;
  }
}
