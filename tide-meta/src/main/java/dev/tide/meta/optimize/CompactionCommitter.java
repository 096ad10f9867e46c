package dev.tide.meta.optimize;

import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.List;
import java.util.Map;

/**
 * What the optimizing service needs from meta: the committed version, compaction commits, SST ids, the
 * durable list of obsolete SSTs and the tables' optimizing properties.
 */
public interface CompactionCommitter {
  /** The latest committed state-store version. */
  StoreVersion committedVersion();

  /**
   * Commits a compaction as one version change — removes {@code removeSstIds}, adds {@code outputs} to
   * L1 — durably, and installs it on every live compute node before returning.
   *
   * @return the new version
   * @throws IllegalArgumentException if the change does not apply to the current version (nothing changed)
   * @throws RuntimeException any other: the outcome is unknown (the version may hold the change), so the
   *     caller must not delete the outputs
   */
  StoreVersion commitCompaction(List<Long> removeSstIds, List<SstInfo> outputs);

  /** The first of {@code count} fresh cluster-unique SST ids. */
  long allocateSstIds(int count);

  /**
   * SSTs that committed compactions dropped and whose objects are not deleted yet. They are recorded
   * durably with the commit, so a new meta run sees those its predecessor had not deleted.
   */
  List<ObsoleteSstRecord> obsoleteSsts();

  /** The objects of these obsolete SSTs are deleted: forget them. Unknown ids are ignored. */
  void forgetObsoleteSsts(List<Long> sstIds);

  /** The stored optimizing properties of every configured table, by table id. */
  Map<Long, Map<String, String>> tableProperties();

  /** Stores a table's optimizing properties durably (empty: back to the defaults). */
  void putTableProperties(long tableId, Map<String, String> properties);
}
