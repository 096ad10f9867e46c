package dev.tide.storage;

import dev.tide.storage.merge.EntryCursor;
import java.util.Arrays;

/** Cursor over a key range of a {@link SortedWriteBatch}, all entries at one epoch. */
final class BatchCursor implements EntryCursor {
  private final SortedWriteBatch batch;
  private final long epoch;
  private final boolean reverse;
  private final int end; // exclusive end (forward) or inclusive start (reverse)
  private int pos;

  /** @param to exclusive upper bound, or null for none */
  BatchCursor(SortedWriteBatch batch, long epoch, byte[] from, byte[] to, boolean reverse) {
    this.batch = batch;
    this.epoch = epoch;
    this.reverse = reverse;
    int lo = batch.ceil(from);
    int hi = to == null ? batch.size() : batch.ceil(to);
    if (to != null && Arrays.compareUnsigned(from, to) >= 0) {
      hi = lo;
    }
    if (!reverse) {
      pos = lo;
      end = hi;
    } else {
      pos = hi - 1;
      end = lo;
    }
  }

  @Override
  public boolean valid() {
    return reverse ? pos >= end : pos < end;
  }

  @Override
  public void next() {
    pos += reverse ? -1 : 1;
  }

  @Override
  public byte[] keyArray() {
    return batch.keyArray(pos);
  }

  @Override
  public int keyOffset() {
    return batch.keyOffset(pos);
  }

  @Override
  public int keyLength() {
    return batch.keyLength(pos);
  }

  @Override
  public byte[] valueArray() {
    return batch.valueArray(pos);
  }

  @Override
  public int valueOffset() {
    return batch.valueOffset(pos);
  }

  @Override
  public int valueLength() {
    return batch.valueLength(pos);
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public boolean tombstone() {
    return batch.isTombstone(pos);
  }
}
