package dev.tide.storage.sst;

import dev.tide.proto.store.SstInfo;
import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.merge.Lookup;
import dev.tide.storage.object.ObjectStore;
import java.util.Arrays;

/**
 * Reads one SST: opening verifies and decodes footer, block index and bloom filter once; data
 * blocks are fetched by ranged reads through the {@link BlockCache} and verified before use.
 *
 * <p>Every checksum, magic, version or structure failure raises {@link CorruptSstException}
 * naming the object path and the part; no data of a damaged part is returned.
 *
 * <p>Thread-safety: immutable after {@link #open}; safe for concurrent use.
 */
public final class SstReader {
  private final ObjectStore objects;
  private final BlockCache cache;
  private final SstInfo info;
  private final String path;
  private final long id;
  private final byte[] smallest;
  private final byte[] largest;
  private final byte[][] firstKeys;
  private final byte[][] lastKeys;
  private final long[] blockOffsets;
  private final int[] blockLengths;
  private final BloomFilter bloom;
  private final long metadataBytes;

  private SstReader(ObjectStore objects, BlockCache cache, SstInfo info, byte[][] firstKeys,
      byte[][] lastKeys, long[] blockOffsets, int[] blockLengths, BloomFilter bloom,
      long metadataBytes) {
    this.objects = objects;
    this.cache = cache;
    this.info = info;
    this.path = info.getObjectPath();
    this.id = info.getId();
    this.smallest = info.getSmallestKey().toByteArray();
    this.largest = info.getLargestKey().toByteArray();
    this.firstKeys = firstKeys;
    this.lastKeys = lastKeys;
    this.blockOffsets = blockOffsets;
    this.blockLengths = blockLengths;
    this.bloom = bloom;
    this.metadataBytes = metadataBytes;
  }

  /**
   * Opens the SST described by {@code info}: two ranged reads (footer; index and bloom), more for a
   * bloom filter over {@link #BLOOM_PIECE_BYTES} (read in pieces of that size).
   *
   * @throws CorruptSstException if footer, index or bloom fail verification
   * @throws dev.tide.storage.object.ObjectStoreException if the object cannot be read
   */
  /** A bloom filter is read in pieces of at most this size (none a humongous object for G1). */
  static final int BLOOM_PIECE_BYTES = 256 << 10;

  public static SstReader open(ObjectStore objects, SstInfo info, BlockCache cache) {
    String path = info.getObjectPath();
    long id = info.getId();
    long size = info.getFileSize();
    if (size < SstFormat.FOOTER_BYTES) {
      throw new CorruptSstException(path, id, "footer",
          "recorded file size " + size + " is below the footer size " + SstFormat.FOOTER_BYTES);
    }
    long footerStart = size - SstFormat.FOOTER_BYTES;
    byte[] footer = objects.getRange(path, footerStart, SstFormat.FOOTER_BYTES);
    String footerPart = "footer at offset " + footerStart;
    long magic = SstFormat.getLong(footer, 40);
    if (magic != SstFormat.MAGIC) {
      throw new CorruptSstException(path, id, footerPart, String.format(
          "bad magic 0x%016x, expected 0x%016x (not an SST, or truncated)", magic,
          SstFormat.MAGIC));
    }
    int storedCrc = SstFormat.getInt(footer, 36);
    int crc = SstFormat.crc32c(footer, 0, 36);
    if (storedCrc != crc) {
      throw new CorruptSstException(path, id, footerPart, String.format(
          "CRC32C mismatch (stored 0x%08x, computed 0x%08x)", storedCrc, crc));
    }
    long indexOffset = SstFormat.getLong(footer, 0);
    int indexLength = SstFormat.getInt(footer, 8);
    long bloomOffset = SstFormat.getLong(footer, 12);
    int bloomLength = SstFormat.getInt(footer, 20);
    long entryCount = SstFormat.getLong(footer, 24);
    int version = SstFormat.getInt(footer, 32);
    if (version != SstFormat.FORMAT_VERSION) {
      throw new CorruptSstException(path, id, footerPart, "format version " + version
          + " is not supported; this reader reads version " + SstFormat.FORMAT_VERSION);
    }
    if (indexOffset < 0 || indexLength < 8 || bloomLength < 9
        || bloomOffset != indexOffset + indexLength
        || bloomOffset + bloomLength != footerStart) {
      throw new CorruptSstException(path, id, footerPart, "index [" + indexOffset + " +"
          + indexLength + ") and bloom [" + bloomOffset + " +" + bloomLength
          + ") do not tile the file before the footer at " + footerStart);
    }
    if (entryCount != info.getKeyCount()) {
      throw new CorruptSstException(path, id, footerPart, "footer counts " + entryCount
          + " entries but the version records key_count " + info.getKeyCount());
    }
    // The index and the bloom filter's first piece in one read; a large filter's rest in pieces.
    int firstPiece = Math.min(bloomLength, BLOOM_PIECE_BYTES);
    byte[] meta = objects.getRange(path, indexOffset, indexLength + firstPiece);

    String indexPart = "index at offset " + indexOffset;
    verifyChecksum(meta, 0, indexLength, path, id, indexPart);
    int blocks = SstFormat.getInt(meta, 0);
    int indexEnd = indexLength - SstFormat.CHECKSUM_BYTES;
    if (blocks <= 0 || blocks > indexEnd / 14) {
      throw new CorruptSstException(path, id, indexPart, "implausible block count " + blocks);
    }
    byte[][] firstKeys = new byte[blocks][];
    byte[][] lastKeys = new byte[blocks][];
    long[] offsets = new long[blocks];
    int[] lengths = new int[blocks];
    int[] pos = {4};
    long expectedOffset = 0;
    for (int b = 0; b < blocks; b++) {
      firstKeys[b] = readKey(meta, pos, indexEnd, path, id, indexPart, b);
      lastKeys[b] = readKey(meta, pos, indexEnd, path, id, indexPart, b);
      if (pos[0] + 12 > indexEnd) {
        throw new CorruptSstException(path, id, indexPart, "entry " + b + " overruns the index");
      }
      offsets[b] = SstFormat.getLong(meta, pos[0]);
      lengths[b] = SstFormat.getInt(meta, pos[0] + 8);
      pos[0] += 12;
      if (offsets[b] != expectedOffset || lengths[b] < 8) {
        throw new CorruptSstException(path, id, indexPart, "block " + b + " at [" + offsets[b]
            + " +" + lengths[b] + ") does not follow the previous block ending at "
            + expectedOffset);
      }
      expectedOffset += lengths[b];
    }
    if (pos[0] != indexEnd || expectedOffset != indexOffset) {
      throw new CorruptSstException(path, id, indexPart,
          "blocks end at " + expectedOffset + ", index at " + indexOffset);
    }

    String bloomPart = "bloom filter at offset " + bloomOffset;
    BloomFilter bloom;
    try {
      BloomFilter.Decoder d = new BloomFilter.Decoder(bloomLength);
      d.feed(meta, indexLength, firstPiece);
      for (long off = firstPiece; off < bloomLength; off += BLOOM_PIECE_BYTES) {
        int len = (int) Math.min(BLOOM_PIECE_BYTES, bloomLength - off);
        d.feed(objects.getRange(path, bloomOffset + off, len), 0, len);
      }
      if (d.storedChecksum() != d.computedChecksum()) {
        throw new CorruptSstException(path, id, bloomPart, String.format(
            "CRC32C mismatch (stored 0x%08x, computed 0x%08x)", d.storedChecksum(), d.computedChecksum()));
      }
      bloom = d.finish();
    } catch (IllegalArgumentException e) {
      throw new CorruptSstException(path, id, bloomPart, e.getMessage());
    }
    return new SstReader(objects, cache, info, firstKeys, lastKeys, offsets, lengths, bloom,
        indexLength + bloom.sizeBytes() + 64L * blocks);
  }

  private static void verifyChecksum(byte[] a, int off, int len, String path, long id,
      String part) {
    int payload = len - SstFormat.CHECKSUM_BYTES;
    int stored = SstFormat.getInt(a, off + payload);
    int computed = SstFormat.crc32c(a, off, payload);
    if (stored != computed) {
      throw new CorruptSstException(path, id, part, String.format(
          "CRC32C mismatch (stored 0x%08x, computed 0x%08x)", stored, computed));
    }
  }

  private static byte[] readKey(byte[] a, int[] pos, int limit, String path, long id,
      String part, int block) {
    int len = SstFormat.getVarint(a, pos, limit);
    if (len < 0 || pos[0] + len > limit) {
      throw new CorruptSstException(path, id, part, "key of block " + block + " overruns");
    }
    byte[] key = Arrays.copyOfRange(a, pos[0], pos[0] + len);
    pos[0] += len;
    return key;
  }

  /** The metadata this reader was opened with. */
  public SstInfo info() {
    return info;
  }

  /** Number of data blocks. */
  public int blockCount() {
    return firstKeys.length;
  }

  /** Approximate heap bytes of the decoded index and bloom filter. */
  public long metadataBytes() {
    return metadataBytes;
  }

  /** False if {@code key} is certainly not in this SST (key range, then bloom filter). */
  public boolean mayContain(byte[] key) {
    return Arrays.compareUnsigned(key, smallest) >= 0 && Arrays.compareUnsigned(key, largest) <= 0
        && bloom.mayContain(Hashing.hash(key));
  }

  /**
   * The entry for {@code key}, or null if this SST has none. Checks key range and bloom filter
   * before reading at most one block.
   */
  public Lookup get(byte[] key) {
    if (!mayContain(key)) {
      return null;
    }
    int b = firstBlockWithLastKeyAtLeast(key);
    if (b == firstKeys.length || Arrays.compareUnsigned(firstKeys[b], key) > 0) {
      return null;
    }
    Block block = block(b, true);
    int i = block.find(key);
    return i < 0 ? null : block.lookup(i);
  }

  /**
   * A cursor over the entries with keys in {@code [fromInclusive, toExclusive)}.
   *
   * @param toExclusive upper bound, or null for none
   * @param reverse whether to iterate in descending order
   * @param fillCache whether blocks read by the cursor enter the block cache (false for one-off
   *     sequential reads such as compaction, so they do not evict the hot set)
   */
  public EntryCursor cursor(byte[] fromInclusive, byte[] toExclusive, boolean reverse,
      boolean fillCache) {
    return new SstCursor(this, fromInclusive, toExclusive, reverse, fillCache);
  }

  byte[] smallest() {
    return smallest;
  }

  byte[] largest() {
    return largest;
  }

  /** Index of the first block whose last key is {@code >= key}; block count if none. */
  int firstBlockWithLastKeyAtLeast(byte[] key) {
    int lo = 0;
    int hi = lastKeys.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(lastKeys[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Index of the last block whose first key is {@code < key}; -1 if none. */
  int lastBlockWithFirstKeyBelow(byte[] key) {
    int lo = 0;
    int hi = firstKeys.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(firstKeys[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1;
  }

  /** The verified, decoded block {@code b}. */
  Block block(int b, boolean fillCache) {
    if (fillCache) {
      return cache.get(id, b, () -> loadBlock(b));
    }
    Block cached = cache.getIfPresent(id, b);
    return cached != null ? cached : loadBlock(b);
  }

  private Block loadBlock(int b) {
    byte[] raw = objects.getRange(path, blockOffsets[b], blockLengths[b]);
    return Block.decode(raw, path, id, b, blockOffsets[b]);
  }

  @Override
  public String toString() {
    return "SstReader(" + id + ", " + path + ", " + firstKeys.length + " blocks)";
  }
}
