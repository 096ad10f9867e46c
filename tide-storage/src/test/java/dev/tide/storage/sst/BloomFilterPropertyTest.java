package dev.tide.storage.sst;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
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

  @Property(tries = 300)
  void writesTheDefinedBitsAndAnswersAsTheDefinitionDoes(@ForAll long seed, @ForAll @IntRange(min = 0, max = 3000) int n,
      @ForAll @IntRange(min = 1, max = 64) int bitsPerKey) {
    Random rnd = new Random(seed);
    long[] hashes = new long[n];
    for (int i = 0; i < n; i++) {
      // Full 64-bit hashes, and some near the top so that probe sums wrap around.
      hashes[i] = rnd.nextInt(4) == 0 ? -1L - rnd.nextInt(1 << 20) : rnd.nextLong();
    }
    GrowableBytes out = new GrowableBytes(64);
    BloomFilter.write(hashes, n, bitsPerKey, out);
    ByteBuffer buf = ByteBuffer.wrap(Arrays.copyOf(out.array(), out.size()));
    int k = buf.get(0) & 0xff;
    long[] words = new long[buf.getInt(1)];
    for (int i = 0; i < words.length; i++) {
      words[i] = buf.getLong(5 + 8 * i);
    }
    assertThat(words).as("seed %d", seed).isEqualTo(referenceWords(hashes, n, bitsPerKey));

    BloomFilter filter = BloomFilter.read(buf);
    for (int i = 0; i < n; i++) {
      assertThat(filter.mayContain(hashes[i])).as("added hash %d", hashes[i]).isTrue();
    }
    for (int i = 0; i < 2000; i++) {
      long probe = rnd.nextInt(4) == 0 ? -1L - rnd.nextInt(1 << 20) : rnd.nextLong();
      assertThat(filter.mayContain(probe)).as("probe %d", probe).isEqualTo(referenceMayContain(words, k, probe));
    }
  }
}
