package dev.tide.storage.sst;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import java.util.function.Supplier;

/**
 * The block cache of a compute node: decoded data blocks keyed by (sst id, block index), bounded
 * by total weight in bytes (raw block bytes plus the decoded offset arrays).
 *
 * <p>Concurrent misses on the same block load it once. Failed loads (I/O errors, corruption) are
 * not cached. Eviction work runs on the calling threads, never on a background pool.
 *
 * <p>Thread-safety: safe for concurrent use.
 */
public final class BlockCache {
  /** Hit and miss counts since creation. */
  public record Stats(long hits, long misses, long evictions) {
    /** Hits over requests, 0 before any request. */
    public double hitRate() {
      long requests = hits + misses;
      return requests == 0 ? 0 : (double) hits / requests;
    }
  }

  private record Key(long sstId, int blockIndex) {}

  private final long maxBytes;
  private final Cache<Key, Block> cache;

  /**
   * @param maxBytes upper bound of the summed weight of cached blocks, at least 0 (0 caches
   *     nothing)
   */
  public BlockCache(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException(
          "block cache size " + maxBytes + " bytes is negative; use 0 to disable the cache");
    }
    this.maxBytes = maxBytes;
    this.cache = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((Key k, Block b) -> b.weightBytes())
        .executor(Runnable::run)
        .recordStats()
        .build();
  }

  /** The block, loaded by {@code loader} and cached on a miss. */
  public Block get(long sstId, int blockIndex, Supplier<Block> loader) {
    return cache.get(new Key(sstId, blockIndex), k -> loader.get());
  }

  /** The block if cached (counted as a hit or a miss), else null. */
  public Block getIfPresent(long sstId, int blockIndex) {
    return cache.getIfPresent(new Key(sstId, blockIndex));
  }

  /** Configured bound in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  /** Current summed weight of cached blocks in bytes (approximate while loads are in flight). */
  public long sizeBytes() {
    return cache.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  /** Hit, miss and eviction counts. */
  public Stats stats() {
    CacheStats s = cache.stats();
    return new Stats(s.hitCount(), s.missCount(), s.evictionCount());
  }
}
