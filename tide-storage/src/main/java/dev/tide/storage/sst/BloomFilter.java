package dev.tide.storage.sst;

import java.util.zip.CRC32C;

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
  private static final int STAGING_BYTES = 32 << 10; // serialized a piece of this size at a time

  private final int hashCount;
  private final long[][] words; // in pages of LongPages.PAGE words: none is a humongous object
  private final long bitCount;
  private final long wrap;

  private BloomFilter(int hashCount, long[][] words, int wordCount) {
    this.hashCount = hashCount;
    this.words = words;
    this.bitCount = (long) wordCount * 64;
    this.wrap = wrapResidue(bitCount);
  }

  /**
   * Builds a filter over {@code hashes} and serializes it (without checksum) onto {@code file}, a
   * staging piece at a time, each piece also added to {@code crc}.
   */
  static void write(LongPages hashes, int bitsPerKey, PagedBytes file, CRC32C crc) {
    int n = hashes.size();
    long bits = Math.max(64L, (long) n * bitsPerKey);
    int wordCount = (int) ((bits + 63) / 64);
    int k = Math.max(1, Math.min(30, (int) Math.round(bitsPerKey * 0.69)));
    long[][] words = LongPages.zeroed(wordCount);
    long bitCount = (long) wordCount * 64;
    long wrap = wrapResidue(bitCount);
    for (int i = 0; i < n; i++) {
      long h = hashes.get(i);
      long delta = (h >>> 33) | (h << 31);
      long step = Long.remainderUnsigned(delta, bitCount);
      long bit = Long.remainderUnsigned(h, bitCount);
      for (int j = 0; j < k; j++) {
        long w = bit >>> 6;
        words[(int) (w >>> LongPages.PAGE_SHIFT)][(int) (w & (LongPages.PAGE - 1))] |= 1L << bit;
        long next = h + delta;
        bit = advance(bit, step, bitCount, Long.compareUnsigned(next, h) < 0 ? wrap : 0);
        h = next;
      }
    }
    GrowableBytes piece = new GrowableBytes(STAGING_BYTES + 16);
    piece.putByte(k);
    piece.putInt(wordCount);
    for (long[] page : words) {
      for (long w : page) {
        piece.putLong(w);
        if (piece.size() >= STAGING_BYTES) {
          flush(piece, file, crc);
        }
      }
    }
    flush(piece, file, crc);
  }

  private static void flush(GrowableBytes piece, PagedBytes file, CRC32C crc) {
    crc.update(piece.array(), 0, piece.size());
    file.append(piece.array(), 0, piece.size());
    piece.reset();
  }

  /**
   * Decodes a filter written by {@link #write} from its bytes and checksum as they are read, piece by
   * piece (so that no buffer holds a large filter whole); {@link #finish} verifies and builds it.
   */
  static final class Decoder {
    private final long payload; // bytes before the checksum
    private final CRC32C crc = new CRC32C();
    private final byte[] head = new byte[5];
    private final byte[] stored = new byte[4];
    private long fed;
    private long[][] words;
    private int wordCount;
    private int word; // words complete
    private long current;
    private int currentBytes;

    /** @param length the filter's serialized length, its trailing checksum included */
    Decoder(long length) {
      this.payload = length - SstFormat.CHECKSUM_BYTES;
    }

    void feed(byte[] a, int off, int len) {
      long end = Math.min(payload, fed + len) - fed; // bytes of this piece before the checksum
      if (end > 0) {
        crc.update(a, off, (int) end);
      }
      for (int i = 0; i < len; i++, fed++) {
        byte b = a[off + i];
        if (fed >= payload) {
          stored[(int) (fed - payload)] = b;
        } else if (fed < 5) {
          head[(int) fed] = b;
          if (fed == 4) {
            start();
          }
        } else {
          current = (current << 8) | (b & 0xff);
          if (++currentBytes == 8) {
            words[word >>> LongPages.PAGE_SHIFT][word & (LongPages.PAGE - 1)] = current; // the header vouched for the count
            word++;
            currentBytes = 0;
            current = 0;
          }
        }
      }
    }

    private void start() {
      int k = head[0] & 0xff;
      wordCount = SstFormat.getInt(head, 1);
      if (k < 1 || k > 30 || wordCount < 1 || payload - 5 != (long) wordCount * 8) {
        throw new IllegalArgumentException("bloom header inconsistent: " + k + " hashes, "
            + wordCount + " words, " + (payload - 5) + " bytes");
      }
      words = LongPages.zeroed(wordCount);
    }

    /** The filter, once every byte was fed (compare the checksums first). */
    BloomFilter finish() {
      if (fed != payload + SstFormat.CHECKSUM_BYTES || words == null) {
        throw new IllegalArgumentException("bloom filter of " + (payload + SstFormat.CHECKSUM_BYTES) + " bytes got " + fed);
      }
      return new BloomFilter(head[0] & 0xff, words, wordCount);
    }

    int storedChecksum() {
      return SstFormat.getInt(stored, 0);
    }

    int computedChecksum() {
      return (int) crc.getValue();
    }
  }

  /** False if the key with this hash is certainly absent. */
  boolean mayContain(long hash) {
    long h = hash;
    long delta = (h >>> 33) | (h << 31);
    long step = Long.remainderUnsigned(delta, bitCount);
    long bit = Long.remainderUnsigned(h, bitCount);
    for (int j = 0; j < hashCount; j++) {
      long w = bit >>> 6;
      if ((words[(int) (w >>> LongPages.PAGE_SHIFT)][(int) (w & (LongPages.PAGE - 1))] & (1L << bit)) == 0) {
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
    return bitCount / 8 + 32L + 16L * words.length;
  }
}
