package dev.tide.storage;

import dev.tide.storage.sst.SstWriter;

/**
 * Tuning of a {@link StateStore}; validated on construction.
 *
 * @param targetSstBytes size at which sync output files are cut, in bytes (default 64 MiB)
 * @param blockTargetBytes size at which SST data blocks are cut, in bytes (default 4 KiB)
 * @param bloomBitsPerKey bloom filter bits per key, 1..64 (default 10, about 1% false positives)
 * @param maxOpenSstReaders SST readers (decoded index and bloom) kept open (default 4096)
 */
public record StoreOptions(
    long targetSstBytes, int blockTargetBytes, int bloomBitsPerKey, int maxOpenSstReaders) {
  public static final long DEFAULT_TARGET_SST_BYTES = 64L << 20;
  public static final int DEFAULT_MAX_OPEN_SST_READERS = 4096;

  public StoreOptions {
    if (targetSstBytes < 1) {
      throw new IllegalArgumentException("state store option targetSstBytes = " + targetSstBytes
          + " must be at least 1 (default " + DEFAULT_TARGET_SST_BYTES + ")");
    }
    if (blockTargetBytes < 1) {
      throw new IllegalArgumentException("state store option blockTargetBytes = "
          + blockTargetBytes + " must be at least 1 (default "
          + SstWriter.DEFAULT_BLOCK_TARGET_BYTES + ")");
    }
    if (bloomBitsPerKey < 1 || bloomBitsPerKey > 64) {
      throw new IllegalArgumentException("state store option bloomBitsPerKey = " + bloomBitsPerKey
          + " must be in 1..64 (default " + SstWriter.DEFAULT_BLOOM_BITS_PER_KEY + ")");
    }
    if (maxOpenSstReaders < 1) {
      throw new IllegalArgumentException("state store option maxOpenSstReaders = "
          + maxOpenSstReaders + " must be at least 1 (default " + DEFAULT_MAX_OPEN_SST_READERS
          + ")");
    }
  }

  /** The production defaults. */
  public static StoreOptions defaults() {
    return new StoreOptions(DEFAULT_TARGET_SST_BYTES, SstWriter.DEFAULT_BLOCK_TARGET_BYTES,
        SstWriter.DEFAULT_BLOOM_BITS_PER_KEY, DEFAULT_MAX_OPEN_SST_READERS);
  }
}
