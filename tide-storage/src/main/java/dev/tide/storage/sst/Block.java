package dev.tide.storage.sst;

import dev.tide.storage.merge.Lookup;
import java.util.Arrays;

/**
 * A verified, decoded data block: the raw bytes plus arrays locating each entry, so lookups
 * binary-search keys in place without parsing or allocating. Immutable; shared through the
 * {@link BlockCache}.
 */
public final class Block {
  private final byte[] data;
  private final int count;
  private final int[] keyOff;
  private final int[] keyLen;
  private final int[] valLen;
  private final long[] epochs;
  private final boolean[] tombstones;

  private Block(byte[] data, int count, int[] keyOff, int[] keyLen, int[] valLen, long[] epochs,
      boolean[] tombstones) {
    this.data = data;
    this.count = count;
    this.keyOff = keyOff;
    this.keyLen = keyLen;
    this.valLen = valLen;
    this.epochs = epochs;
    this.tombstones = tombstones;
  }

  /**
   * Verifies and decodes the stored bytes of a data block.
   *
   * @throws CorruptSstException if the checksum or the structure is wrong
   */
  static Block decode(byte[] raw, String path, long sstId, int blockIndex, long offset) {
    String part = "data block " + blockIndex + " at offset " + offset + " length " + raw.length;
    if (raw.length < 8) {
      throw new CorruptSstException(path, sstId, part, "block shorter than its 8-byte trailer");
    }
    int payload = raw.length - SstFormat.CHECKSUM_BYTES;
    int stored = SstFormat.getInt(raw, payload);
    int computed = SstFormat.crc32c(raw, 0, payload);
    if (stored != computed) {
      throw new CorruptSstException(path, sstId, part, String.format(
          "CRC32C mismatch (stored 0x%08x, computed 0x%08x)", stored, computed));
    }
    int entriesEnd = payload - 4;
    int count = SstFormat.getInt(raw, entriesEnd);
    // Every entry takes at least 11 bytes: two one-byte varints, kind and epoch.
    if (count <= 0 || count > entriesEnd / 11 + 1) {
      throw new CorruptSstException(path, sstId, part, "implausible entry count " + count);
    }
    int[] keyOff = new int[count];
    int[] keyLen = new int[count];
    int[] valLen = new int[count];
    long[] epochs = new long[count];
    boolean[] tombstones = new boolean[count];
    int[] pos = {0};
    for (int i = 0; i < count; i++) {
      int kl = SstFormat.getVarint(raw, pos, entriesEnd);
      int vl = SstFormat.getVarint(raw, pos, entriesEnd);
      int p = pos[0];
      if (kl < 0 || vl < 0 || (long) p + SstFormat.ENTRY_FIXED_BYTES + kl + vl > entriesEnd) {
        throw new CorruptSstException(path, sstId, part, "entry " + i + " overruns the block");
      }
      byte kind = raw[p];
      if (kind != SstFormat.KIND_PUT && kind != SstFormat.KIND_DELETE) {
        throw new CorruptSstException(path, sstId, part, "entry " + i + " has kind " + kind);
      }
      tombstones[i] = kind == SstFormat.KIND_DELETE;
      epochs[i] = SstFormat.getLong(raw, p + 1);
      keyOff[i] = p + SstFormat.ENTRY_FIXED_BYTES;
      keyLen[i] = kl;
      valLen[i] = vl;
      pos[0] = keyOff[i] + kl + vl;
    }
    if (pos[0] != entriesEnd) {
      throw new CorruptSstException(path, sstId, part,
          (entriesEnd - pos[0]) + " bytes after the last of " + count + " entries");
    }
    return new Block(raw, count, keyOff, keyLen, valLen, epochs, tombstones);
  }

  /** Number of entries. */
  public int count() {
    return count;
  }

  /** Heap bytes held, for the cache weigher. */
  public int weightBytes() {
    return data.length + count * 21 + 96;
  }

  byte[] data() {
    return data;
  }

  int keyOffset(int i) {
    return keyOff[i];
  }

  int keyLength(int i) {
    return keyLen[i];
  }

  int valueOffset(int i) {
    return keyOff[i] + keyLen[i];
  }

  int valueLength(int i) {
    return valLen[i];
  }

  long epoch(int i) {
    return epochs[i];
  }

  boolean tombstone(int i) {
    return tombstones[i];
  }

  private int compareAt(int i, byte[] key) {
    return Arrays.compareUnsigned(data, keyOff[i], keyOff[i] + keyLen[i], key, 0, key.length);
  }

  /** Index of the first entry with key {@code >= key}; {@link #count()} if none. */
  int ceil(byte[] key) {
    int lo = 0;
    int hi = count;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (compareAt(mid, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Index of the entry with exactly {@code key}, or -1. */
  int find(byte[] key) {
    int i = ceil(key);
    return i < count && compareAt(i, key) == 0 ? i : -1;
  }

  /** The entry at {@code i} as a lookup result (the value is copied). */
  Lookup lookup(int i) {
    if (tombstones[i]) {
      return Lookup.delete(epochs[i]);
    }
    int vo = valueOffset(i);
    return Lookup.put(epochs[i], Arrays.copyOfRange(data, vo, vo + valLen[i]));
  }
}
