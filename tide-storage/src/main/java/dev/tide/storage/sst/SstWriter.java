package dev.tide.storage.sst;

import com.google.protobuf.ByteString;
import dev.tide.common.store.StoreKeys;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.object.ObjectStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Builds one SST in memory from entries added in strictly increasing key order.
 *
 * <p>Blocks are cut once they reach the target size (an entry larger than the target gets a block
 * of its own). {@link #finish} appends index, bloom filter and footer and returns the file's bytes
 * (in pages, never one array of the whole file) with the {@link SstInfo} describing them. Keys of at least four bytes contribute their table id
 * to {@code table_ids}; shorter keys have none.
 *
 * <p>Thread-safety: confined to one thread. Single use: no entries may be added after finish.
 */
public final class SstWriter {
  public static final int DEFAULT_BLOCK_TARGET_BYTES = 4096;
  public static final int DEFAULT_BLOOM_BITS_PER_KEY = 10;

  /**
   * An encoded SST, in parts of at most {@value PagedBytes#MAX_PAGE_BYTES} bytes each (upload them
   * with {@link dev.tide.storage.object.ObjectStore#put(String, List)}), and its metadata.
   */
  public record Built(List<ByteBuffer> parts, SstInfo info) {
    /** The file as one array (a copy: for tests and tools; uploads take the parts). */
    public byte[] bytes() {
      return ObjectStore.concat(parts);
    }
  }

  private static final byte[] EMPTY = new byte[0];

  private final int blockTargetBytes;
  private final int bloomBitsPerKey;
  // The finished blocks, then the current block (reused for each block, then for index, bloom and footer).
  private final PagedBytes file = new PagedBytes();
  private final GrowableBytes block = new GrowableBytes(2 * DEFAULT_BLOCK_TARGET_BYTES);

  // Current block.
  private int blockEntries;
  private byte[] blockFirstKey;
  private int lastKeyOffset; // in block, valid while blockEntries > 0
  private int lastKeyLen;

  // Finished blocks.
  private final List<byte[]> firstKeys = new ArrayList<>();
  private final List<byte[]> lastKeys = new ArrayList<>();
  private long[] blockOffsets = new long[16];
  private int[] blockLengths = new int[16];
  private long indexKeyBytes;

  // File statistics.
  private final LongPages hashes = new LongPages();
  private int count;
  private long tombstones;
  private long minEpoch = Long.MAX_VALUE;
  private long maxEpoch = Long.MIN_VALUE;
  private byte[] smallestKey;
  private final List<Integer> tableIds = new ArrayList<>();
  private boolean finished;

  /** A writer with 4 KiB blocks and 10 bloom bits per key. */
  public SstWriter() {
    this(DEFAULT_BLOCK_TARGET_BYTES, DEFAULT_BLOOM_BITS_PER_KEY);
  }

  /**
   * @param blockTargetBytes size at which a data block is cut, at least 1
   * @param bloomBitsPerKey bloom filter bits per key, 1..64
   */
  public SstWriter(int blockTargetBytes, int bloomBitsPerKey) {
    if (blockTargetBytes < 1) {
      throw new IllegalArgumentException(
          "SST block target " + blockTargetBytes + " bytes must be at least 1 (default 4096)");
    }
    if (bloomBitsPerKey < 1 || bloomBitsPerKey > 64) {
      throw new IllegalArgumentException(
          "bloom bits per key " + bloomBitsPerKey + " must be in 1..64 (default 10)");
    }
    this.blockTargetBytes = blockTargetBytes;
    this.bloomBitsPerKey = bloomBitsPerKey;
  }

  /** Adds an entry; {@code value} is ignored for a tombstone. */
  public void add(byte[] key, long epoch, boolean tombstone, byte[] value) {
    byte[] v = tombstone || value == null ? EMPTY : value;
    add(key, 0, key.length, epoch, tombstone, v, 0, v.length);
  }

  /**
   * Adds an entry given as slices; {@code value} is ignored for a tombstone.
   *
   * @throws IllegalArgumentException if the key is not greater than the previous key
   */
  public void add(byte[] key, int keyOff, int keyLen, long epoch, boolean tombstone,
      byte[] value, int valueOff, int valueLen) {
    if (finished) {
      throw new IllegalStateException("SST writer already finished; start a new writer");
    }
    if (count > 0) {
      int c = blockEntries > 0
          ? Arrays.compareUnsigned(key, keyOff, keyOff + keyLen, block.array(), lastKeyOffset,
              lastKeyOffset + lastKeyLen)
          : Arrays.compareUnsigned(key, keyOff, keyOff + keyLen, lastKeys.get(lastKeys.size() - 1),
              0, lastKeys.get(lastKeys.size() - 1).length);
      if (c <= 0) {
        throw new IllegalArgumentException("SST entries must be added in strictly increasing key"
            + " order: key " + StoreKeys.toHex(Arrays.copyOfRange(key, keyOff, keyOff + keyLen))
            + " follows key " + StoreKeys.toHex(lastKey()) + "; sort and deduplicate first");
      }
    }
    if (tombstone) {
      valueLen = 0;
    }
    if (blockEntries == 0) {
      blockFirstKey = Arrays.copyOfRange(key, keyOff, keyOff + keyLen);
    }
    if (count == 0) {
      smallestKey = Arrays.copyOfRange(key, keyOff, keyOff + keyLen);
    }
    block.putVarint(keyLen);
    block.putVarint(valueLen);
    block.putByte(tombstone ? SstFormat.KIND_DELETE : SstFormat.KIND_PUT);
    block.putLong(epoch);
    lastKeyOffset = block.size();
    lastKeyLen = keyLen;
    block.putBytes(key, keyOff, keyLen);
    if (valueLen > 0) {
      block.putBytes(value, valueOff, valueLen);
    }

    hashes.add(Hashing.hash(key, keyOff, keyLen));
    count++;
    blockEntries++;
    if (tombstone) {
      tombstones++;
    }
    minEpoch = Math.min(minEpoch, epoch);
    maxEpoch = Math.max(maxEpoch, epoch);
    if (keyLen >= StoreKeys.TABLE_ID_BYTES) {
      int table = SstFormat.getInt(key, keyOff);
      // Keys are sorted, so table ids arrive in non-decreasing (unsigned) order.
      if (tableIds.isEmpty() || tableIds.get(tableIds.size() - 1) != table) {
        tableIds.add(table);
      }
    }
    if (block.size() >= blockTargetBytes) {
      finishBlock();
    }
  }

  private byte[] lastKey() {
    if (blockEntries > 0) {
      return Arrays.copyOfRange(block.array(), lastKeyOffset, lastKeyOffset + lastKeyLen);
    }
    return lastKeys.get(lastKeys.size() - 1);
  }

  private void finishBlock() {
    byte[] lastKey = lastKey();
    block.putInt(blockEntries);
    block.putInt(SstFormat.crc32c(block.array(), 0, block.size()));
    if (file.size() + block.size() > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("SST larger than 2 GiB; lower the target file size");
    }
    int n = firstKeys.size();
    if (n == blockOffsets.length) {
      blockOffsets = Arrays.copyOf(blockOffsets, n * 2);
      blockLengths = Arrays.copyOf(blockLengths, n * 2);
    }
    firstKeys.add(blockFirstKey);
    lastKeys.add(lastKey);
    blockOffsets[n] = file.size();
    blockLengths[n] = block.size();
    indexKeyBytes += blockFirstKey.length + lastKey.length;
    file.append(block.array(), 0, block.size());
    block.reset();
    blockEntries = 0;
  }

  /** Number of entries added. */
  public int entryCount() {
    return count;
  }

  /** Estimated size of the finished file in bytes. */
  public long estimatedFileBytes() {
    return file.size() + block.size() + indexKeyBytes + 24L * (firstKeys.size() + 1)
        + (long) count * bloomBitsPerKey / 8 + 64;
  }

  /**
   * Completes the file.
   *
   * @param id the SST id to record
   * @param objectPath the object path to record
   * @throws IllegalStateException if no entry was added
   */
  public Built finish(long id, String objectPath) {
    if (finished) {
      throw new IllegalStateException("SST writer already finished; start a new writer");
    }
    if (count == 0) {
      throw new IllegalStateException("SST " + id + " (" + objectPath
          + ") has no entries; an SST holds at least one entry, skip empty outputs");
    }
    if (blockEntries > 0) {
      finishBlock();
    }
    finished = true;
    byte[] largestKey = lastKeys.get(lastKeys.size() - 1);

    // Index and footer are staged in the (empty) block buffer, then appended to the file.
    GrowableBytes out = block;
    long indexOffset = file.size();
    int blocks = firstKeys.size();
    out.putInt(blocks);
    for (int i = 0; i < blocks; i++) {
      byte[] first = firstKeys.get(i);
      byte[] last = lastKeys.get(i);
      out.putVarint(first.length);
      out.putBytes(first, 0, first.length);
      out.putVarint(last.length);
      out.putBytes(last, 0, last.length);
      out.putLong(blockOffsets[i]);
      out.putInt(blockLengths[i]);
    }
    out.putInt(SstFormat.crc32c(out.array(), 0, out.size()));
    int indexLength = out.size();
    file.append(out.array(), 0, out.size());
    out.reset();

    // The bloom filter goes onto the file in pieces: a large one is never one array.
    long bloomOffset = file.size();
    CRC32C crc = new CRC32C();
    BloomFilter.write(hashes, bloomBitsPerKey, file, crc);
    out.putInt((int) crc.getValue());
    file.append(out.array(), 0, out.size());
    out.reset();
    int bloomLength = (int) (file.size() - bloomOffset);

    int footerStart = out.size();
    out.putLong(indexOffset);
    out.putInt(indexLength);
    out.putLong(bloomOffset);
    out.putInt(bloomLength);
    out.putLong(count);
    out.putInt(SstFormat.FORMAT_VERSION);
    out.putInt(SstFormat.crc32c(out.array(), footerStart, out.size() - footerStart));
    out.putLong(SstFormat.MAGIC);

    long total = file.size() + out.size();
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("SST larger than 2 GiB; lower the target file size");
    }
    file.append(out.array(), 0, out.size());
    SstInfo.Builder info = SstInfo.newBuilder()
        .setId(id)
        .setObjectPath(objectPath)
        .setSmallestKey(ByteString.copyFrom(smallestKey))
        .setLargestKey(ByteString.copyFrom(largestKey))
        .setMinEpoch(minEpoch)
        .setMaxEpoch(maxEpoch)
        .setFileSize(total)
        .setKeyCount(count)
        .setTombstoneCount(tombstones);
    for (int t : tableIds) {
      info.addTableIds(t);
    }
    return new Built(file.parts(), info.build());
  }
}
