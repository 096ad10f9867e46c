package dev.tide.meta.optimize;

import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.List;

/** What the optimizing service needs from meta: the committed version, compaction commits and SST ids. */
public interface CompactionCommitter {
  /** The latest committed state-store version. */
  StoreVersion committedVersion();

  /**
   * Commits a compaction as one version change — removes {@code removeSstIds}, adds {@code outputs} to
   * L1 — durably, and installs it on every live compute node before returning.
   *
   * @return the new version
   * @throws IllegalArgumentException if the change does not apply to the current version (nothing changed)
   */
  StoreVersion commitCompaction(List<Long> removeSstIds, List<SstInfo> outputs);

  /** The first of {@code count} fresh cluster-unique SST ids. */
  long allocateSstIds(int count);
}
