package dev.tide.storage.sst;

import java.util.ArrayList;
import java.util.List;

/**
 * An append-only byte sequence in pages that grow with it (64 KiB up to 4 MiB), so it never copies
 * what it holds to grow; {@link #copyTo} assembles it once. Not thread-safe.
 */
final class PagedBytes {
  private static final int MIN_PAGE_BYTES = 64 << 10;
  private static final int MAX_PAGE_BYTES = 4 << 20;

  private final List<byte[]> pages = new ArrayList<>();
  private byte[] page;
  private int pageUsed;
  private long size;

  long size() {
    return size;
  }

  void append(byte[] src, int off, int len) {
    while (len > 0) {
      if (page == null || pageUsed == page.length) {
        page = new byte[(int) Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, size))];
        pages.add(page);
        pageUsed = 0;
      }
      int n = Math.min(len, page.length - pageUsed);
      System.arraycopy(src, off, page, pageUsed, n);
      pageUsed += n;
      off += n;
      len -= n;
      size += n;
    }
  }

  /** Copies every byte to {@code dst[0, size)}. */
  void copyTo(byte[] dst) {
    long left = size;
    int at = 0;
    for (byte[] p : pages) {
      int n = (int) Math.min(p.length, left);
      System.arraycopy(p, 0, dst, at, n);
      at += n;
      left -= n;
    }
  }
}
