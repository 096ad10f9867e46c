package dev.tide.storage.compact;

import dev.tide.proto.store.SstInfo;
import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.merge.MergingCursor;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.storage.sst.SstReader;
import dev.tide.storage.sst.SstUploader;
import dev.tide.storage.sst.SstWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Merges SSTs into new, non-overlapping SSTs of about a target size.
 *
 * <p>For a key present in several inputs the entry of the newest input wins, keeping its epoch.
 * Tombstones are kept unless {@code dropTombstones}, which is only correct when no older data
 * for the input key range exists below the target level (the target is the bottom level).
 *
 * <p>Reads go through the block cache only for blocks already cached; blocks read for the first
 * time do not enter it, so a compaction does not evict the readers' hot set. Nothing is deleted:
 * the inputs become garbage once a version without them is committed.
 */
public final class Compactor {
  private Compactor() {}

  /**
   * Compacts {@code inputsNewestFirst} into new SSTs uploaded under {@code objectPrefix}.
   *
   * @param inputsNewestFirst inputs by priority: for equal keys the earlier input wins (L0 inputs
   *     newest first, then inputs of the next level)
   * @param dropTombstones whether deletions are dropped instead of written
   * @param targetFileBytes size at which output files are cut, in bytes
   * @param ids source of cluster-unique SST ids
   * @return the outputs in key order, non-overlapping; empty if nothing remains
   * @throws dev.tide.storage.sst.CorruptSstException if an input fails verification; no output
   *     is reported then
   */
  public static List<SstInfo> compact(ObjectStore objects, BlockCache cache,
      List<SstInfo> inputsNewestFirst, boolean dropTombstones, long targetFileBytes,
      LongSupplier ids, String objectPrefix) {
    return compact(objects, cache, inputsNewestFirst, new byte[0], null, dropTombstones,
        targetFileBytes, ids, objectPrefix);
  }

  /**
   * Like {@link #compact(ObjectStore, BlockCache, List, boolean, long, LongSupplier, String)} for
   * the keys of the inputs in {@code [fromInclusive, toExclusive)} only: several range tasks can
   * share inputs and together rewrite them.
   *
   * @param toExclusive upper bound, or null for the end of the key space
   */
  public static List<SstInfo> compact(ObjectStore objects, BlockCache cache,
      List<SstInfo> inputsNewestFirst, byte[] fromInclusive, byte[] toExclusive,
      boolean dropTombstones, long targetFileBytes, LongSupplier ids, String objectPrefix) {
    List<EntryCursor> sources = new ArrayList<>(inputsNewestFirst.size());
    for (SstInfo input : inputsNewestFirst) {
      sources.add(SstReader.open(objects, input, cache)
          .cursor(fromInclusive, toExclusive, false, false));
    }
    MergingCursor merged = new MergingCursor(sources, false);
    SstUploader out = new SstUploader(objects, objectPrefix, ids, targetFileBytes,
        SstWriter.DEFAULT_BLOCK_TARGET_BYTES, SstWriter.DEFAULT_BLOOM_BITS_PER_KEY);
    for (; merged.valid(); merged.next()) {
      if (dropTombstones && merged.tombstone()) {
        continue;
      }
      out.add(merged);
    }
    return out.finish();
  }
}
