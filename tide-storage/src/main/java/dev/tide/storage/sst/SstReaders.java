package dev.tide.storage.sst;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.object.ObjectStore;

/**
 * Open {@link SstReader}s by SST id, so footer, index and bloom of an SST are read and decoded
 * once, not per lookup. Bounded by a number of readers (least recently used are dropped and
 * reopened on demand). SST ids name immutable objects, so a cached reader never goes stale.
 *
 * <p>Thread-safety: safe for concurrent use; concurrent first uses of an SST open it once.
 */
public final class SstReaders {
  private final ObjectStore objects;
  private final BlockCache blocks;
  private final Cache<Long, SstReader> readers;

  /** @param maxOpenReaders readers kept open, at least 1 */
  public SstReaders(ObjectStore objects, BlockCache blocks, int maxOpenReaders) {
    if (maxOpenReaders < 1) {
      throw new IllegalArgumentException(
          "max open SST readers " + maxOpenReaders + " must be at least 1");
    }
    this.objects = objects;
    this.blocks = blocks;
    this.readers = Caffeine.newBuilder()
        .maximumSize(maxOpenReaders)
        .executor(Runnable::run)
        .build();
  }

  /** The reader of {@code info}, opened on first use. */
  public SstReader reader(SstInfo info) {
    SstReader r = readers.getIfPresent(info.getId());
    if (r != null) {
      return r;
    }
    return readers.get(info.getId(), id -> SstReader.open(objects, info, blocks));
  }

  /** Forgets the reader of SST {@code id}, if open. */
  public void invalidate(long id) {
    readers.invalidate(id);
  }

  /** Approximate number of open readers. */
  public long size() {
    return readers.estimatedSize();
  }
}
