package dev.tide.optimizer.worker;

import dev.tide.proto.optimizer.CompactionTask;
import dev.tide.proto.store.SstInfo;
import dev.tide.storage.compact.Compactor;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import java.util.List;
import java.util.function.LongSupplier;

/** Runs one compaction task against the object store: the work of an optimizer thread between ack and complete. */
public final class CompactionRunner {
  private final ObjectStore objects;
  private final BlockCache cache;

  /** @param cache blocks already cached are reused; compaction reads do not fill it */
  public CompactionRunner(ObjectStore objects, BlockCache cache) {
    this.objects = objects;
    this.cache = cache;
  }

  /** Merges the task's inputs over its key range into new SSTs under its object prefix; returns them in key order. */
  public List<SstInfo> run(CompactionTask task, LongSupplier sstIds) {
    byte[] to = task.getToKey().isEmpty() ? null : task.getToKey().toByteArray();
    return Compactor.compact(objects, cache, task.getInputsList(), task.getFromKey().toByteArray(), to, task.getDropTombstones(),
        task.getTargetFileBytes(), sstIds, task.getObjectPrefix());
  }

  /** Deletes outputs that will never be committed (the result was refused). */
  public void discard(List<SstInfo> outputs) {
    for (SstInfo sst : outputs) {
      objects.delete(sst.getObjectPath());
    }
  }
}
