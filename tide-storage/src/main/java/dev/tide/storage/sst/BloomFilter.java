package dev.tide.storage.sst;

import java.nio.ByteBuffer;

/**
 * A bloom filter over 64-bit key hashes with double hashing; about 1% false positives at 10 bits
 * per key. Immutable.
 */
final class BloomFilter {
  private final int hashCount;
  private final long[] words;
  private final long bitCount;

  private BloomFilter(int hashCount, long[] words) {
    this.hashCount = hashCount;
    this.words = words;
    this.bitCount = (long) words.length * 64;
  }

  /** Builds a filter over {@code hashes[0..n)} and serializes it (without checksum). */
  static void write(long[] hashes, int n, int bitsPerKey, GrowableBytes out) {
    long bits = Math.max(64L, (long) n * bitsPerKey);
    int wordCount = (int) ((bits + 63) / 64);
    int k = Math.max(1, Math.min(30, (int) Math.round(bitsPerKey * 0.69)));
    long[] words = new long[wordCount];
    long bitCount = (long) wordCount * 64;
    for (int i = 0; i < n; i++) {
      long h = hashes[i];
      long delta = (h >>> 33) | (h << 31);
      for (int j = 0; j < k; j++) {
        long bit = Long.remainderUnsigned(h, bitCount);
        words[(int) (bit >>> 6)] |= 1L << bit;
        h += delta;
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
    for (int j = 0; j < hashCount; j++) {
      long bit = Long.remainderUnsigned(h, bitCount);
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
      h += delta;
    }
    return true;
  }

  /** Heap bytes of the filter. */
  long sizeBytes() {
    return (long) words.length * 8 + 32;
  }
}
