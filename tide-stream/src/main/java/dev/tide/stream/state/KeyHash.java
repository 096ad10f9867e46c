package dev.tide.stream.state;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash of a state key, computed once per key access and shared by the memtable's index and the
 * key filter's fingerprints: a MurmurHash64A-style mix of 8-byte words folded to a non-zero int.
 * The length is mixed in last, so hashing a key also yields the hash of one of its prefixes
 * ({@link #ofPrefixAndWhole}) without a second pass. Not persisted: it may change between versions.
 */
final class KeyHash {
  private static final long M = 0xc6a4a7935bd1e995L;
  private static final long SEED = 0x2545f4914f6cdd1dL;
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private KeyHash() {}

  /** The hash of {@code a[0, len)}; never 0. */
  static int of(byte[] a, int len) {
    return of(a, 0, len);
  }

  /** The hash of the {@code len} bytes at {@code a[from]}, equal to {@link #of(byte[], int)} of a copy of them. */
  static int of(byte[] a, int from, int len) {
    int words = from + (len & ~7);
    return finish(mixWords(SEED, a, from, words), a, words, from + len, len);
  }

  /**
   * The hashes of {@code a[0, prefixLen)} (high 32 bits) and of {@code a[0, len)} (low 32 bits), each
   * equal to {@link #of} of those bytes; {@code prefixLen <= len}.
   */
  static long ofPrefixAndWhole(byte[] a, int prefixLen, int len) {
    int prefixWords = prefixLen & ~7;
    long h = mixWords(SEED, a, 0, prefixWords);
    int prefix = finish(h, a, prefixWords, prefixLen, prefixLen);
    int words = len & ~7;
    int whole = finish(mixWords(h, a, prefixWords, words), a, words, len, len);
    return ((long) prefix << 32) | (whole & 0xffffffffL);
  }

  /** Mixes the 8-byte words of {@code a[from, to)} into {@code h}; {@code to - from} is a multiple of 8. */
  private static long mixWords(long h, byte[] a, int from, int to) {
    for (int i = from; i < to; i += 8) {
      long k = (long) LONG_LE.get(a, i);
      k *= M;
      k ^= k >>> 47;
      k *= M;
      h ^= k;
      h *= M;
    }
    return h;
  }

  /** Mixes the tail {@code a[from, to)} (under 8 bytes) and the key's length {@code len} into {@code h}, then folds it. */
  private static int finish(long h, byte[] a, int from, int to, int len) {
    long t = 0;
    for (int i = to - 1; i >= from; i--) {
      t = (t << 8) | (a[i] & 0xffL);
    }
    h ^= t;
    h *= M;
    h ^= len * M;
    h ^= h >>> 47;
    h *= M;
    h ^= h >>> 47;
    int f = (int) (h ^ (h >>> 32));
    return f == 0 ? 1 : f;
  }
}
