package dev.tide.storage.sst;

import java.nio.ByteBuffer;

/**
 * A bloom filter over 64-bit key hashes with double hashing; about 1% false positives at 10 bits
 * per key. Immutable.
 *
 * <p>Probe {@code j} of a hash {@code h} is bit {@code (h + j * delta) mod 2^64 mod bitCount}
 * (unsigned). Both sides compute it incrementally, with two divisions per hash instead of one per
 * probe: the residue advances by {@code delta mod bitCount}, less {@code 2^64 mod bitCount} when
 * the 64-bit sum wraps around.
 */
final class BloomFilter {
  private final int hashCount;
  private final long[] words;
  private final long bitCount;
  private final long wrap;

  private BloomFilter(int hashCount, long[] words) {
    this.hashCount = hashCount;
    this.words = words;
    this.bitCount = (long) words.length * 64;
    this.wrap = wrapResidue(bitCount);
  }

  /** Builds a filter over {@code hashes[0..n)} and serializes it (without checksum). */
  static void write(long[] hashes, int n, int bitsPerKey, GrowableBytes out) {
    long bits = Math.max(64L, (long) n * bitsPerKey);
    int wordCount = (int) ((bits + 63) / 64);
    int k = Math.max(1, Math.min(30, (int) Math.round(bitsPerKey * 0.69)));
    long[] words = new long[wordCount];
    long bitCount = (long) wordCount * 64;
    long wrap = wrapResidue(bitCount);
    for (int i = 0; i < n; i++) {
      long h = hashes[i];
      long delta = (h >>> 33) | (h << 31);
      long step = Long.remainderUnsigned(delta, bitCount);
      long bit = Long.remainderUnsigned(h, bitCount);
      for (int j = 0; j < k; j++) {
        words[(int) (bit >>> 6)] |= 1L << bit;
        long next = h + delta;
        bit = advance(bit, step, bitCount, Long.compareUnsigned(next, h) < 0 ? wrap : 0);
        h = next;
      }
    }
    out.putByte(k);
    out.putInt(wordCount);
    for (long w : words) {
      out.putLong(w);
    }
  }

  /** Decodes a filter written by {@link #write}; {@code buf} holds exactly its bytes. */
  static BloomFilter read(ByteBuffer buf) {
    int k = buf.get() & 0xff;
    int wordCount = buf.getInt();
    if (k < 1 || k > 30 || wordCount < 1 || buf.remaining() != (long) wordCount * 8) {
      throw new IllegalArgumentException("bloom header inconsistent: " + k + " hashes, "
          + wordCount + " words, " + buf.remaining() + " bytes");
    }
    long[] words = new long[wordCount];
    for (int i = 0; i < wordCount; i++) {
      words[i] = buf.getLong();
    }
    return new BloomFilter(k, words);
  }

  /** False if the key with this hash is certainly absent. */
  boolean mayContain(long hash) {
    long h = hash;
    long delta = (h >>> 33) | (h << 31);
    long step = Long.remainderUnsigned(delta, bitCount);
    long bit = Long.remainderUnsigned(h, bitCount);
    for (int j = 0; j < hashCount; j++) {
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
      long next = h + delta;
      bit = advance(bit, step, bitCount, Long.compareUnsigned(next, h) < 0 ? wrap : 0);
      h = next;
    }
    return true;
  }

  /** {@code 2^64 mod bitCount}: what a wrap-around of the 64-bit probe sum takes off its residue. */
  private static long wrapResidue(long bitCount) {
    return (Long.remainderUnsigned(-1L, bitCount) + 1) % bitCount;
  }

  /** The next probe's residue: {@code (bit + step - wrapped) mod bitCount}, all three below {@code bitCount}. */
  private static long advance(long bit, long step, long bitCount, long wrapped) {
    long next = bit + step;
    if (next >= bitCount) {
      next -= bitCount;
    }
    next -= wrapped;
    return next < 0 ? next + bitCount : next;
  }

  /** Heap bytes of the filter. */
  long sizeBytes() {
    return (long) words.length * 8 + 32;
  }
}
