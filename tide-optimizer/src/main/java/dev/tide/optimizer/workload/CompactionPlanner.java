package dev.tide.optimizer.workload;

import com.google.protobuf.ByteString;
import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pure compaction planning and triggering of one state table on a version.
 *
 * <p>A table's compaction takes every L0 SST of the table (newest first) and every L1 SST of the
 * table and rewrites them as L1 SSTs. Checkpoints write one table per SST, so the inputs hold this
 * table only: removing them touches no other table, the outputs overlap no other table's L0 SST, and
 * any L0 SST of the table committed later is newer than every input (the L0 order rule of
 * {@link dev.tide.common.store.VersionDeltas} holds). The work is split into vnode ranges of about
 * {@code taskInputBytes}; each task reads all inputs restricted to its range. Tombstones are dropped
 * unless a deeper level holds data of the table.
 *
 * <p>A table with an SST shared with other tables (written before per-table SSTs) cannot be
 * compacted alone: planning fails and names the SST.
 */
public final class CompactionPlanner {
  private CompactionPlanner() {}

  /** L0 SST count and bytes of one table. */
  public record L0Stats(int files, long bytes) {}

  /** L0 statistics of every table with an L0 SST, by table id. */
  public static Map<Long, L0Stats> l0Stats(StoreVersion version) {
    Map<Long, L0Stats> out = new TreeMap<>();
    for (SstInfo sst : version.getL0().getSstsList()) {
      for (int t : sst.getTableIdsList()) {
        out.merge(Integer.toUnsignedLong(t), new L0Stats(1, sst.getFileSize()),
            (a, b) -> new L0Stats(a.files() + b.files(), a.bytes() + b.bytes()));
      }
    }
    return out;
  }

  /** Whether a table with these L0 statistics needs optimizing. */
  public static boolean needsOptimizing(L0Stats stats, WorkloadOptions options) {
    return stats.files() >= options.l0Files() || stats.bytes() >= options.l0Bytes();
  }

  /**
   * Plans the compaction of {@code tableId} on {@code version}.
   *
   * @return the plan; empty when the table has no L0 SST
   * @throws IllegalStateException when an input SST also holds other tables
   */
  public static CompactionPlan plan(StoreVersion version, long tableId, WorkloadOptions options) {
    List<SstInfo> l0 = ofTable(version.getL0(), tableId);
    if (l0.isEmpty()) {
      return new CompactionPlan(tableId, List.of(), List.of());
    }
    List<SstInfo> inputs = new ArrayList<>(l0);
    if (version.getLevelsCount() > 0) {
      inputs.addAll(ofTable(version.getLevels(0), tableId));
    }
    boolean deeper = false;
    for (int i = 1; i < version.getLevelsCount(); i++) {
      deeper |= !ofTable(version.getLevels(i), tableId).isEmpty();
    }
    long bytes = 0;
    int lowVnode = Integer.MAX_VALUE;
    int highVnode = 0;
    for (SstInfo sst : inputs) {
      bytes += sst.getFileSize();
      lowVnode = Math.min(lowVnode, vnode(sst.getSmallestKey()));
      highVnode = Math.max(highVnode, vnode(sst.getLargestKey()));
    }
    long wanted = Math.max(1, (bytes + options.taskInputBytes() - 1) / options.taskInputBytes());
    int n = (int) Math.min(Math.min(wanted, options.maxTasksPerTable()), highVnode - lowVnode + 1L);
    List<ByteString> bounds = new ArrayList<>();
    bounds.add(tablePrefix(tableId));
    for (int i = 1; i < n; i++) {
      int v = lowVnode + (int) ((long) (highVnode - lowVnode + 1) * i / n);
      bounds.add(tablePrefix(tableId).concat(ByteString.copyFrom(new byte[] {(byte) (v >>> 8), (byte) v})));
    }
    bounds.add(tableId == 0xffffffffL ? ByteString.EMPTY : tablePrefix(tableId + 1));
    List<TaskSpec> tasks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      tasks.add(new TaskSpec(tableId, inputs, bounds.get(i), bounds.get(i + 1), !deeper, options.targetFileBytes()));
    }
    return new CompactionPlan(tableId, inputs, tasks);
  }

  /** The SSTs of {@code level} holding {@code tableId}, in level order; refuses shared ones. */
  private static List<SstInfo> ofTable(Level level, long tableId) {
    List<SstInfo> out = new ArrayList<>();
    for (SstInfo sst : level.getSstsList()) {
      if (sst.getTableIdsList().stream().anyMatch(t -> Integer.toUnsignedLong(t) == tableId)) {
        if (sst.getTableIdsCount() != 1) {
          throw new IllegalStateException("compaction of table " + tableId + " cannot be planned: L" + level.getLevelIndex()
              + " sst " + sst.getId() + " also holds tables " + sst.getTableIdsList()
              + "; only SSTs of one table can be compacted per table (they are rewritten by newer checkpoints)");
        }
        out.add(sst);
      }
    }
    return out;
  }

  /** The 4-byte big-endian key prefix of a table. */
  public static ByteString tablePrefix(long tableId) {
    return ByteString.copyFrom(new byte[] {(byte) (tableId >>> 24), (byte) (tableId >>> 16), (byte) (tableId >>> 8), (byte) tableId});
  }

  /** The vnode of a state key (bytes 4–5), 0 for a key too short to carry one. */
  private static int vnode(ByteString key) {
    return key.size() < 6 ? 0 : ((key.byteAt(4) & 0xff) << 8) | (key.byteAt(5) & 0xff);
  }
}
