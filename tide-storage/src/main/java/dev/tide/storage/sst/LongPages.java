package dev.tide.storage.sst;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An append-only sequence of longs in pages of at most 256 KiB, so that none is a humongous object
 * for the G1 collector (see {@link PagedBytes}): the first page grows by doubling up to that size,
 * then full pages follow. Not thread-safe.
 */
final class LongPages {
  static final int PAGE_SHIFT = 15;
  static final int PAGE = 1 << PAGE_SHIFT; // longs: 256 KiB
  private static final int FIRST = 256;

  private final List<long[]> pages = new ArrayList<>();
  private long[] page;
  private int used;
  private int size;

  /** {@code count} longs, all zero, in pages (for a filter's words). */
  static long[][] zeroed(int count) {
    long[][] out = new long[(count + PAGE - 1) >>> PAGE_SHIFT][];
    for (int p = 0; p < out.length; p++) {
      out[p] = new long[Math.min(PAGE, count - (p << PAGE_SHIFT))];
    }
    return out;
  }

  void add(long v) {
    if (page == null) {
      page = new long[FIRST];
      pages.add(page);
    } else if (used == page.length) {
      if (pages.size() == 1 && page.length < PAGE) {
        page = Arrays.copyOf(page, page.length * 2);
        pages.set(0, page);
      } else {
        page = new long[PAGE];
        pages.add(page);
        used = 0;
      }
    }
    page[used++] = v;
    size++;
  }

  int size() {
    return size;
  }

  long get(int i) {
    return pages.get(i >>> PAGE_SHIFT)[i & (PAGE - 1)];
  }
}
