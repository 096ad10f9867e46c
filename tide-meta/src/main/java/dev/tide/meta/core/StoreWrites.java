package dev.tide.meta.core;

import dev.tide.meta.store.Counters;
import dev.tide.meta.store.MetaStore;

/** Carries out the core's {@link Effect.Write}s on a {@link MetaStore}, one transaction each. */
public final class StoreWrites {
  private StoreWrites() {}

  /**
   * @throws RuntimeException whatever the store throws; the write then may or may not have happened
   *     (the caller rebuilds its state from the store)
   */
  public static void apply(MetaStore store, Effect.Write w) {
    if (w instanceof Effect.Write.PutJob p) {
      store.putJob(p.job());
    } else if (w instanceof Effect.Write.DeleteJob d) {
      store.deleteJob(d.jobId());
    } else if (w instanceof Effect.Write.SetPaused p) {
      store.setPaused(p.jobId(), p.paused());
    } else if (w instanceof Effect.Write.PutWorker p) {
      store.putWorker(p.worker());
    } else if (w instanceof Effect.Write.DeleteWorker d) {
      store.deleteWorker(d.workerId());
    } else if (w instanceof Effect.Write.CommitVersion c) {
      store.commitVersion(c.version(), c.layouts(), Counters.NONE);
    } else if (w instanceof Effect.Write.CommitCompaction c) {
      store.commitCompaction(c.version(), c.dropped(), Counters.NONE);
    } else if (w instanceof Effect.Write.PutCatalog p) {
      store.putCatalog(p.record());
    } else if (w instanceof Effect.Write.DeleteCatalog d) {
      store.deleteCatalog(d.name());
    } else if (w instanceof Effect.Write.Reserve r) {
      long first = store.allocate(r.kind(), r.count());
      if (first != r.expectedFirst()) {
        throw new IllegalStateException(r.kind() + " ids from " + r.expectedFirst() + " were to be reserved, but the store handed out "
            + first + "; is another meta writing the same store?");
      }
    }
  }
}
