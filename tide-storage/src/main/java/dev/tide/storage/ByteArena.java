package dev.tide.storage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Append-only bytes in pages of at most {@value #PAGE} bytes, each slice within one page, so that an
 * epoch's writes (a memtable's keys and values, a batch's entries) never sit in one large array: a
 * heap array of half a G1 region or more is a humongous object, allocated in contiguous free
 * regions of its own, and the tens of megabytes an epoch writes, as one array grown by doubling,
 * fragmented the heap into full collections. The first page grows by doubling up to the page size
 * (small tables stay small); later pages are allocated whole. A slice longer than a page gets an
 * array of its own.
 *
 * <p>A slice is found by its position: {@code page << PAGE_SHIFT | offset} for paged slices, a
 * negative number for one with its own array. Positions stay valid until {@link #reset}. Not
 * thread-safe; a reader on another thread needs a happens-before edge after the last write (as a
 * batch handed to the uploader has).
 */
public final class ByteArena {
  public static final int PAGE_SHIFT = 18;
  public static final int PAGE = 1 << PAGE_SHIFT;
  private static final int MASK = PAGE - 1;
  private static final int FIRST_PAGE = 4096;
  private static final int MAX_PAGES = 1 << (31 - PAGE_SHIFT); // positions are non-negative ints

  private byte[][] pages = new byte[4][]; // [0, pageCount) allocated
  private int pageCount;
  private final List<byte[]> large = new ArrayList<>();
  private int page = -1; // the page being filled
  private int used; // bytes of it
  private long bytes; // in slices
  private long capacity; // allocated, pages and large slices

  /** Reserves {@code len} contiguous bytes; returns their position (write them through {@link #array}/{@link #offset}). */
  public int reserve(int len) {
    if (len > PAGE) {
      bytes += len;
      capacity += len;
      large.add(new byte[len]);
      return -large.size();
    }
    if (page < 0 || pages[page].length - used < len) {
      if (page == 0 && used + len <= PAGE) {
        // The first page grows by doubling (its slices keep their positions).
        capacity -= pages[0].length;
        pages[0] = Arrays.copyOf(pages[0], Math.min(PAGE, Math.max(pages[0].length * 2, used + len)));
        capacity += pages[0].length;
      } else {
        if (page + 1 == MAX_PAGES) {
          throw new IllegalStateException("byte arena full: " + bytes + " bytes in " + MAX_PAGES + " pages of " + PAGE
              + " (2 GiB); write less between barriers (a memtable holds one epoch's writes)");
        }
        page++;
        used = 0;
        if (page == pageCount) {
          if (pageCount == pages.length) {
            pages = Arrays.copyOf(pages, pageCount * 2);
          }
          pages[pageCount++] = new byte[page == 0 ? Math.max(FIRST_PAGE, len) : PAGE];
          capacity += pages[page].length;
        } else if (pages[page].length < len) { // a small first page reused after a reset
          capacity -= pages[page].length;
          pages[page] = new byte[Math.min(PAGE, Math.max(pages[page].length * 2, len))];
          capacity += pages[page].length;
        }
      }
    }
    int at = page << PAGE_SHIFT | used;
    used += len;
    bytes += len;
    return at;
  }

  /** Copies {@code src[off, off + len)} in; returns its position. */
  public int append(byte[] src, int off, int len) {
    int at = reserve(len);
    System.arraycopy(src, off, array(at), offset(at), len);
    return at;
  }

  /** The array holding the slice at {@code pos}. */
  public byte[] array(int pos) {
    return pos >= 0 ? pages[pos >>> PAGE_SHIFT] : large.get(-pos - 1);
  }

  /** Where in {@link #array} the slice at {@code pos} starts. */
  public static int offset(int pos) {
    return pos >= 0 ? pos & MASK : 0;
  }

  /** Bytes in slices (live or not). */
  public long bytes() {
    return bytes;
  }

  /** Bytes allocated. */
  public long capacity() {
    return capacity;
  }

  /** Forgets every slice and keeps the pages for the next ones (their old contents are overwritten). */
  public void reset() {
    for (byte[] l : large) {
      capacity -= l.length;
    }
    large.clear();
    page = -1;
    used = 0;
    bytes = 0;
  }
}
