package dev.tide.storage.merge;

import java.util.Arrays;
import java.util.List;

/**
 * Merges cursors of the same direction into one, newest source first: for a key present in
 * several sources, only the entry of the source with the lowest index is produced (tombstones
 * included; filtering them is the caller's choice).
 *
 * <p>A binary heap of source indices ordered by (key in the direction, source index): the root is
 * the current entry. Cost per produced entry: O(log sources) comparisons of key slices, no
 * allocation.
 *
 * <p>Thread-safety: confined to one thread.
 */
public final class MergingCursor implements EntryCursor {
  private final EntryCursor[] sources;
  private final boolean reverse;
  private final int[] heap;
  private int size;

  /**
   * @param newestFirst sources in priority order, all ascending or all descending
   * @param reverse whether the sources (and so the result) are descending
   */
  public MergingCursor(List<? extends EntryCursor> newestFirst, boolean reverse) {
    this.sources = newestFirst.toArray(new EntryCursor[0]);
    this.reverse = reverse;
    this.heap = new int[sources.length];
    for (int i = 0; i < sources.length; i++) {
      if (sources[i].valid()) {
        heap[size++] = i;
      }
    }
    for (int i = size / 2 - 1; i >= 0; i--) {
      siftDown(i);
    }
  }

  @Override
  public boolean valid() {
    return size > 0;
  }

  @Override
  public void next() {
    EntryCursor top = sources[heap[0]];
    byte[] ka = top.keyArray();
    int ko = top.keyOffset();
    int kl = top.keyLength();
    advanceRoot();
    // Skip older entries of the same key in the other sources.
    while (size > 0) {
      EntryCursor c = sources[heap[0]];
      if (Arrays.compareUnsigned(c.keyArray(), c.keyOffset(), c.keyOffset() + c.keyLength(),
          ka, ko, ko + kl) != 0) {
        break;
      }
      advanceRoot();
    }
  }

  private void advanceRoot() {
    EntryCursor c = sources[heap[0]];
    c.next();
    if (!c.valid()) {
      heap[0] = heap[--size];
    }
    if (size > 0) {
      siftDown(0);
    }
  }

  private void siftDown(int i) {
    int item = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && less(heap[child + 1], heap[child])) {
        child++;
      }
      if (!less(heap[child], item)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = item;
  }

  private boolean less(int a, int b) {
    EntryCursor x = sources[a];
    EntryCursor y = sources[b];
    int c = Arrays.compareUnsigned(x.keyArray(), x.keyOffset(), x.keyOffset() + x.keyLength(),
        y.keyArray(), y.keyOffset(), y.keyOffset() + y.keyLength());
    if (c != 0) {
      return reverse ? c > 0 : c < 0;
    }
    return a < b;
  }

  private EntryCursor current() {
    return sources[heap[0]];
  }

  @Override
  public byte[] keyArray() {
    return current().keyArray();
  }

  @Override
  public int keyOffset() {
    return current().keyOffset();
  }

  @Override
  public int keyLength() {
    return current().keyLength();
  }

  @Override
  public byte[] valueArray() {
    return current().valueArray();
  }

  @Override
  public int valueOffset() {
    return current().valueOffset();
  }

  @Override
  public int valueLength() {
    return current().valueLength();
  }

  @Override
  public long epoch() {
    return current().epoch();
  }

  @Override
  public boolean tombstone() {
    return current().tombstone();
  }
}
