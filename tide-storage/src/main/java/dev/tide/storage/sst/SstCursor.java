package dev.tide.storage.sst;

import dev.tide.storage.merge.EntryCursor;
import java.util.Arrays;

/** Cursor over a key range of one SST, loading blocks lazily. Confined to one thread. */
final class SstCursor implements EntryCursor {
  private final SstReader reader;
  private final byte[] from;
  private final byte[] to;
  private final boolean reverse;
  private final boolean fillCache;
  private int blockIndex;
  private Block block;
  private int pos;
  private boolean valid;

  SstCursor(SstReader reader, byte[] from, byte[] to, boolean reverse, boolean fillCache) {
    this.reader = reader;
    this.from = from;
    this.to = to;
    this.reverse = reverse;
    this.fillCache = fillCache;
    if ((to != null && Arrays.compareUnsigned(from, to) >= 0)
        || Arrays.compareUnsigned(reader.largest(), from) < 0
        || (to != null && Arrays.compareUnsigned(reader.smallest(), to) >= 0)) {
      return;
    }
    if (!reverse) {
      blockIndex = reader.firstBlockWithLastKeyAtLeast(from);
      if (blockIndex >= reader.blockCount()) {
        return;
      }
      block = reader.block(blockIndex, fillCache);
      pos = block.ceil(from);
      valid = true;
      settleForward();
    } else {
      blockIndex = to == null ? reader.blockCount() - 1 : reader.lastBlockWithFirstKeyBelow(to);
      if (blockIndex < 0) {
        return;
      }
      block = reader.block(blockIndex, fillCache);
      pos = to == null ? block.count() - 1 : block.ceil(to) - 1;
      valid = true;
      settleReverse();
    }
  }

  /** Moves past exhausted blocks and stops at the upper bound. */
  private void settleForward() {
    while (pos >= block.count()) {
      if (++blockIndex >= reader.blockCount()) {
        valid = false;
        return;
      }
      block = reader.block(blockIndex, fillCache);
      pos = 0;
    }
    if (to != null && compareKey(to) >= 0) {
      valid = false;
    }
  }

  /** Moves before exhausted blocks and stops at the lower bound. */
  private void settleReverse() {
    while (pos < 0) {
      if (--blockIndex < 0) {
        valid = false;
        return;
      }
      block = reader.block(blockIndex, fillCache);
      pos = block.count() - 1;
    }
    if (compareKey(from) < 0) {
      valid = false;
    }
  }

  private int compareKey(byte[] bound) {
    int off = block.keyOffset(pos);
    return Arrays.compareUnsigned(block.data(), off, off + block.keyLength(pos), bound, 0,
        bound.length);
  }

  @Override
  public boolean valid() {
    return valid;
  }

  @Override
  public void next() {
    if (!reverse) {
      pos++;
      settleForward();
    } else {
      pos--;
      settleReverse();
    }
  }

  @Override
  public byte[] keyArray() {
    return block.data();
  }

  @Override
  public int keyOffset() {
    return block.keyOffset(pos);
  }

  @Override
  public int keyLength() {
    return block.keyLength(pos);
  }

  @Override
  public byte[] valueArray() {
    return block.data();
  }

  @Override
  public int valueOffset() {
    return block.valueOffset(pos);
  }

  @Override
  public int valueLength() {
    return block.valueLength(pos);
  }

  @Override
  public long epoch() {
    return block.epoch(pos);
  }

  @Override
  public boolean tombstone() {
    return block.tombstone(pos);
  }
}
