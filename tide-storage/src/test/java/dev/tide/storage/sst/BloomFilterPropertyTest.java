package dev.tide.storage.sst;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The bloom filter's incremental probes against the definition, one unsigned division per probe:
 * the same bytes are written (the SST format does not change) and the same keys pass.
 */
class BloomFilterPropertyTest {
  /** The filter as the format defines it: probe j of h is bit {@code (h + j * delta) mod 2^64 mod bitCount}. */
  private static long[] referenceWords(long[] hashes, int n, int bitsPerKey) {
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
    return words;
  }

  private static boolean referenceMayContain(long[] words, int k, long hash) {
    long bitCount = (long) words.length * 64;
    long h = hash;
    long delta = (h >>> 33) | (h << 31);
    for (int j = 0; j < k; j++) {
      long bit = Long.remainderUnsigned(h, bitCount);
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
      h += delta;
    }
    return true;
  }

  /** Serialized by the writer, with its checksum after it: the bytes an SST holds. */
  private static byte[] serialized(long[] hashes, int n, int bitsPerKey) {
    LongPages pages = new LongPages();
    for (int i = 0; i < n; i++) {
      pages.add(hashes[i]);
    }
    PagedBytes file = new PagedBytes();
    CRC32C crc = new CRC32C();
    BloomFilter.write(pages, bitsPerKey, file, crc);
    ByteBuffer all = ByteBuffer.allocate((int) file.size() + 4);
    file.parts().forEach(all::put);
    all.putInt((int) crc.getValue());
    return all.array();
  }

  /** Decoded from pieces of random sizes (words and the checksum cut anywhere). */
  private static BloomFilter decoded(byte[] bytes, Random rnd) {
    BloomFilter.Decoder d = new BloomFilter.Decoder(bytes.length);
    for (int off = 0; off < bytes.length; ) {
      int len = Math.min(bytes.length - off, 1 + rnd.nextInt(64));
      d.feed(bytes, off, len);
      off += len;
    }
    assertThat(d.storedChecksum()).isEqualTo(d.computedChecksum());
    return d.finish();
  }

  private static void check(long seed, long[] hashes, int n, int bitsPerKey, int probes) {
    Random rnd = new Random(seed);
    byte[] bytes = serialized(hashes, n, bitsPerKey);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    int k = buf.get(0) & 0xff;
    long[] words = new long[buf.getInt(1)];
    for (int i = 0; i < words.length; i++) {
      words[i] = buf.getLong(5 + 8 * i);
    }
    assertThat(words).as("seed %d", seed).isEqualTo(referenceWords(hashes, n, bitsPerKey));
    BloomFilter filter = decoded(bytes, rnd);
    for (int i = 0; i < n; i++) {
      assertThat(filter.mayContain(hashes[i])).as("added hash %d", hashes[i]).isTrue();
    }
    for (int i = 0; i < probes; i++) {
      long probe = rnd.nextInt(4) == 0 ? -1L - rnd.nextInt(1 << 20) : rnd.nextLong();
      assertThat(filter.mayContain(probe)).as("probe %d", probe).isEqualTo(referenceMayContain(words, k, probe));
    }
  }

  private static long[] hashes(Random rnd, int n) {
    long[] hashes = new long[n];
    for (int i = 0; i < n; i++) {
      // Full 64-bit hashes, and some near the top so that probe sums wrap around.
      hashes[i] = rnd.nextInt(4) == 0 ? -1L - rnd.nextInt(1 << 20) : rnd.nextLong();
    }
    return hashes;
  }

  @Property(tries = 300)
  void writesTheDefinedBitsAndAnswersAsTheDefinitionDoes(@ForAll long seed, @ForAll @IntRange(min = 0, max = 3000) int n,
      @ForAll @IntRange(min = 1, max = 64) int bitsPerKey) {
    check(seed, hashes(new Random(seed), n), n, bitsPerKey, 2000);
  }

  /** Words across several pages (and hashes across several pages of the writer's list). */
  @Property(tries = 3)
  void aFilterOfSeveralPagesIsTheDefinedOne(@ForAll long seed) {
    int n = 3 * LongPages.PAGE + 17;
    check(seed, hashes(new Random(seed), n), n, 40, 20_000);
  }
}
