package dev.tide.storage;

import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.sst.SstReaders;
import java.util.Arrays;

/**
 * Cursor over a key range of a level of non-overlapping SSTs sorted by key: one source for the
 * merge, opening each SST's cursor only when the previous one is exhausted.
 */
final class LevelCursor implements EntryCursor {
  private final SstRef[] ssts;
  private final SstReaders readers;
  private final byte[] from;
  private final byte[] to;
  private final boolean reverse;
  private int index;
  private EntryCursor current;

  LevelCursor(SstRef[] ssts, SstReaders readers, byte[] from, byte[] to, boolean reverse) {
    this.ssts = ssts;
    this.readers = readers;
    this.from = from;
    this.to = to;
    this.reverse = reverse;
    if (to != null && Arrays.compareUnsigned(from, to) >= 0) {
      index = -1; // empty range
    } else if (!reverse) {
      index = SstRef.firstWithLargestAtLeast(ssts, from);
    } else {
      index = to == null ? ssts.length - 1 : SstRef.lastWithSmallestBelow(ssts, to);
    }
    open();
  }

  /** Opens the cursor of SST {@code index} or beyond, skipping SSTs with nothing in range. */
  private void open() {
    current = null;
    while (index >= 0 && index < ssts.length) {
      SstRef sst = ssts[index];
      if (!sst.overlaps(from, to)) {
        return; // sorted: every further SST is out of range too
      }
      EntryCursor c = readers.reader(sst.info).cursor(from, to, reverse, true);
      if (c.valid()) {
        current = c;
        return;
      }
      index += reverse ? -1 : 1;
    }
  }

  @Override
  public boolean valid() {
    return current != null;
  }

  @Override
  public void next() {
    current.next();
    if (!current.valid()) {
      index += reverse ? -1 : 1;
      open();
    }
  }

  @Override
  public byte[] keyArray() {
    return current.keyArray();
  }

  @Override
  public int keyOffset() {
    return current.keyOffset();
  }

  @Override
  public int keyLength() {
    return current.keyLength();
  }

  @Override
  public byte[] valueArray() {
    return current.valueArray();
  }

  @Override
  public int valueOffset() {
    return current.valueOffset();
  }

  @Override
  public int valueLength() {
    return current.valueLength();
  }

  @Override
  public long epoch() {
    return current.epoch();
  }

  @Override
  public boolean tombstone() {
    return current.tombstone();
  }
}
