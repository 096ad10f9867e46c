package dev.tide.storage.sst;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only byte sequence in pages that grow with it (64 KiB up to 256 KiB), so it never copies
 * what it holds to grow, and no page is a humongous object for the G1 collector (half a region or
 * more: regions are 1 MiB at least), which a large heap array is: allocated in old regions of its
 * own, a file's worth of them per SST fragments the heap into full collections. {@link #parts}
 * hands the pages out as they are. Not thread-safe.
 */
final class PagedBytes {
  private static final int MIN_PAGE_BYTES = 64 << 10;
  static final int MAX_PAGE_BYTES = 256 << 10;

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

  /** The bytes, page by page (read-only views of the pages, no copy); do not append afterwards. */
  List<ByteBuffer> parts() {
    List<ByteBuffer> out = new ArrayList<>(pages.size());
    long left = size;
    for (byte[] p : pages) {
      int n = (int) Math.min(p.length, left);
      out.add(ByteBuffer.wrap(p, 0, n).asReadOnlyBuffer());
      left -= n;
    }
    return out;
  }
}
