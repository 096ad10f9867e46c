package dev.tide.storage.sst;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** 64-bit MurmurHash64A of byte slices; stable across runs and versions (it is stored in SSTs). */
public final class Hashing {
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long M = 0xc6a4a7935bd1e995L;
  private static final int R = 47;
  private static final long SEED = 0x5469646553737431L; // "TideSst1"

  private Hashing() {}

  public static long hash(byte[] a) {
    return hash(a, 0, a.length);
  }

  public static long hash(byte[] a, int off, int len) {
    long h = SEED ^ (len * M);
    int end = off + (len & ~7);
    for (int i = off; i < end; i += 8) {
      long k = (long) LONG_LE.get(a, i);
      k *= M;
      k ^= k >>> R;
      k *= M;
      h ^= k;
      h *= M;
    }
    int rem = len & 7;
    if (rem != 0) {
      long t = 0;
      for (int i = rem - 1; i >= 0; i--) {
        t = (t << 8) | (a[end + i] & 0xffL);
      }
      h ^= t;
      h *= M;
    }
    h ^= h >>> R;
    h *= M;
    h ^= h >>> R;
    return h;
  }
}
