package dev.tide.common.store;

import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.store.VersionDelta;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pure application of {@link VersionDelta}s to {@link StoreVersion}s.
 *
 * <p>Version shape: {@code l0} (level index 0) holds possibly overlapping SSTs, newest first;
 * {@code levels.get(i)} is level {@code i + 1} and holds non-overlapping SSTs sorted by smallest
 * key. Every version has an {@code l0}; {@code levels} may be shorter than the deepest level ever
 * named (missing levels are empty).
 *
 * <p>A delta is one of two kinds:
 *
 * <ul>
 *   <li><b>checkpoint</b> ({@code remove_sst_ids} and {@code add_level} empty): prepends {@code
 *       add_l0} to L0 in delta order and sets {@code max_committed_epoch}, which must not decrease.
 *       Added SSTs must hold only epochs in {@code (old committed epoch, new committed epoch]}.
 *   <li><b>compaction</b> ({@code add_l0} empty): removes {@code remove_sst_ids} from whatever
 *       level holds them and inserts {@code add_level} into {@code target_level} (at least 1),
 *       which must stay non-overlapping. {@code max_committed_epoch} is 0 or unchanged. A
 *       compaction must not move data below an older L0 SST that overlaps it (reads would find
 *       the older value first), so an L0 SST that stays while a newer L0 SST is removed must not
 *       overlap any output.
 * </ul>
 *
 * <p>Every delta must name the current version as {@code prev_version_id}; the result has id
 * {@code prev + 1}. Invalid deltas are refused with an {@link IllegalArgumentException} and
 * nothing is changed (versions are immutable values). SST ids are unique within a version.
 */
public final class VersionDeltas {
  private VersionDeltas() {}

  /** The version before any checkpoint: id 0, committed epoch 0, no SSTs. */
  public static StoreVersion empty() {
    return StoreVersion.newBuilder()
        .setId(0)
        .setMaxCommittedEpoch(0)
        .setL0(Level.newBuilder().setLevelIndex(0))
        .build();
  }

  /** Every SST of {@code version}: L0 newest first, then L1, L2, ... in key order. */
  public static List<SstInfo> allSsts(StoreVersion version) {
    List<SstInfo> all = new ArrayList<>(sstCount(version));
    all.addAll(version.getL0().getSstsList());
    for (Level level : version.getLevelsList()) {
      all.addAll(level.getSstsList());
    }
    return all;
  }

  /** Number of SSTs in {@code version}. */
  public static int sstCount(StoreVersion version) {
    int n = version.getL0().getSstsCount();
    for (Level level : version.getLevelsList()) {
      n += level.getSstsCount();
    }
    return n;
  }

  /** A checkpoint delta on {@code base}: adds {@code newL0NewestFirst} and commits {@code epoch}. */
  public static VersionDelta checkpoint(
      StoreVersion base, long epoch, List<SstInfo> newL0NewestFirst) {
    return VersionDelta.newBuilder()
        .setPrevVersionId(base.getId())
        .setMaxCommittedEpoch(epoch)
        .addAllAddL0(newL0NewestFirst)
        .build();
  }

  /** A compaction delta on {@code base}: replaces {@code removeIds} by {@code outputs} in a level. */
  public static VersionDelta compaction(
      StoreVersion base, Collection<Long> removeIds, int targetLevel, List<SstInfo> outputs) {
    return VersionDelta.newBuilder()
        .setPrevVersionId(base.getId())
        .setMaxCommittedEpoch(base.getMaxCommittedEpoch())
        .addAllRemoveSstIds(removeIds)
        .setTargetLevel(targetLevel)
        .addAllAddLevel(outputs)
        .build();
  }

  /**
   * Applies {@code delta} to {@code version}.
   *
   * @return the next version, with id {@code version.id + 1}
   * @throws IllegalArgumentException if the delta does not apply to {@code version}; the message
   *     names the offending value and the rule
   */
  public static StoreVersion apply(StoreVersion version, VersionDelta delta) {
    if (delta.getPrevVersionId() != version.getId()) {
      throw new IllegalArgumentException(
          "version delta refused: it was built on version " + delta.getPrevVersionId()
              + " but the current version is " + version.getId()
              + "; rebuild the delta on the current version");
    }
    boolean compaction = delta.getRemoveSstIdsCount() > 0 || delta.getAddLevelCount() > 0;
    if (compaction && delta.getAddL0Count() > 0) {
      throw new IllegalArgumentException(
          "version delta on version " + version.getId() + " refused: it adds "
              + delta.getAddL0Count() + " L0 SSTs and also removes or adds level SSTs;"
              + " a delta is either a checkpoint or a compaction, send two deltas");
    }
    return compaction ? applyCompaction(version, delta) : applyCheckpoint(version, delta);
  }

  private static StoreVersion applyCheckpoint(StoreVersion version, VersionDelta delta) {
    long oldEpoch = version.getMaxCommittedEpoch();
    long newEpoch = delta.getMaxCommittedEpoch();
    if (Long.compareUnsigned(newEpoch, oldEpoch) < 0) {
      throw new IllegalArgumentException(
          "checkpoint delta on version " + version.getId() + " refused: max_committed_epoch "
              + newEpoch + " is below the committed epoch " + oldEpoch
              + "; committed epochs never decrease");
    }
    Set<Long> ids = idsOf(version);
    for (SstInfo sst : delta.getAddL0List()) {
      checkNewSst("checkpoint", version, sst, ids);
      if (Long.compareUnsigned(sst.getMinEpoch(), oldEpoch) <= 0
          || Long.compareUnsigned(sst.getMaxEpoch(), newEpoch) > 0) {
        throw new IllegalArgumentException(
            "checkpoint delta on version " + version.getId() + " refused: sst " + sst.getId()
                + " holds epochs [" + sst.getMinEpoch() + ", " + sst.getMaxEpoch()
                + "] but a checkpoint from committed epoch " + oldEpoch + " to " + newEpoch
                + " may only add epochs in (" + oldEpoch + ", " + newEpoch + "]");
      }
    }
    Level.Builder l0 = Level.newBuilder().setLevelIndex(0);
    l0.addAllSsts(delta.getAddL0List());
    l0.addAllSsts(version.getL0().getSstsList());
    return version.toBuilder()
        .setId(version.getId() + 1)
        .setMaxCommittedEpoch(newEpoch)
        .setL0(l0)
        .build();
  }

  private static StoreVersion applyCompaction(StoreVersion version, VersionDelta delta) {
    long id = version.getId();
    if (delta.getMaxCommittedEpoch() != 0
        && delta.getMaxCommittedEpoch() != version.getMaxCommittedEpoch()) {
      throw new IllegalArgumentException(
          "compaction delta on version " + id + " refused: max_committed_epoch "
              + delta.getMaxCommittedEpoch() + " differs from the committed epoch "
              + version.getMaxCommittedEpoch() + "; a compaction leaves it unchanged (send 0)");
    }
    int target = delta.getTargetLevel();
    if (delta.getAddLevelCount() > 0 && target < 1) {
      throw new IllegalArgumentException(
          "compaction delta on version " + id + " refused: target_level " + target
              + " must be at least 1 when add_level holds SSTs; L0 receives only checkpoints");
    }

    // Which level holds each id (0 = L0).
    Map<Long, Integer> levelOf = new HashMap<>();
    for (SstInfo sst : version.getL0().getSstsList()) {
      levelOf.put(sst.getId(), 0);
    }
    for (int i = 0; i < version.getLevelsCount(); i++) {
      for (SstInfo sst : version.getLevels(i).getSstsList()) {
        levelOf.put(sst.getId(), i + 1);
      }
    }
    Set<Long> removed = new HashSet<>();
    for (long rid : delta.getRemoveSstIdsList()) {
      if (!levelOf.containsKey(rid)) {
        throw new IllegalArgumentException(
            "compaction delta on version " + id + " refused: sst " + rid
                + " to remove is not in the version; it may have been compacted already,"
                + " plan the compaction again on version " + id);
      }
      if (!removed.add(rid)) {
        throw new IllegalArgumentException(
            "compaction delta on version " + id + " refused: sst " + rid
                + " is listed twice in remove_sst_ids; list each input once");
      }
    }

    Set<Long> remainingIds = new HashSet<>(levelOf.keySet());
    remainingIds.removeAll(removed);
    List<SstInfo> outputs = new ArrayList<>(delta.getAddLevelList());
    for (SstInfo sst : outputs) {
      checkNewSst("compaction", version, sst, remainingIds);
    }
    outputs.sort(BY_SMALLEST_KEY);
    checkL0Order(version, removed, target, outputs);

    StoreVersion.Builder next = version.toBuilder().setId(id + 1);
    next.setL0(filterLevel(version.getL0(), removed));
    int levelCount = Math.max(version.getLevelsCount(), target);
    next.clearLevels();
    for (int index = 1; index <= levelCount; index++) {
      Level old = index <= version.getLevelsCount()
          ? version.getLevels(index - 1)
          : Level.newBuilder().setLevelIndex(index).build();
      Level kept = filterLevel(old, removed);
      if (index == target && !outputs.isEmpty()) {
        kept = insertSorted(id, kept, outputs);
      }
      next.addLevels(kept.toBuilder().setLevelIndex(index));
    }
    return next.build();
  }

  /**
   * Refuses moving data out of L0 when an older L0 SST that stays overlaps an output: reads
   * search L0 before the levels, so they would find the older value first.
   */
  private static void checkL0Order(
      StoreVersion version, Set<Long> removed, int target, List<SstInfo> outputs) {
    if (outputs.isEmpty()) {
      return;
    }
    SstInfo newestRemoved = null;
    for (SstInfo sst : version.getL0().getSstsList()) { // newest first
      if (removed.contains(sst.getId())) {
        if (newestRemoved == null) {
          newestRemoved = sst;
        }
        continue;
      }
      if (newestRemoved == null) {
        continue; // newer than every removed L0 SST: it shadows the outputs correctly
      }
      for (SstInfo out : outputs) {
        if (overlaps(sst, out)) {
          throw new IllegalArgumentException(
              "compaction delta on version " + version.getId() + " refused: L0 sst "
                  + sst.getId() + " " + range(sst) + " stays while the newer L0 sst "
                  + newestRemoved.getId() + " is compacted into level " + target
                  + ", and it overlaps output sst " + out.getId() + " " + range(out)
                  + " (reads would find its older values first); compact the oldest L0 SSTs"
                  + " first");
        }
      }
    }
  }

  private static Level filterLevel(Level level, Set<Long> removed) {
    if (removed.isEmpty()) {
      return level;
    }
    Level.Builder b = Level.newBuilder().setLevelIndex(level.getLevelIndex());
    for (SstInfo sst : level.getSstsList()) {
      if (!removed.contains(sst.getId())) {
        b.addSsts(sst);
      }
    }
    return b.build();
  }

  private static Level insertSorted(long versionId, Level level, List<SstInfo> sortedOutputs) {
    List<SstInfo> merged = new ArrayList<>(level.getSstsCount() + sortedOutputs.size());
    merged.addAll(level.getSstsList());
    merged.addAll(sortedOutputs);
    merged.sort(BY_SMALLEST_KEY);
    for (int i = 1; i < merged.size(); i++) {
      SstInfo prev = merged.get(i - 1);
      SstInfo cur = merged.get(i);
      if (StoreKeys.compare(prev.getLargestKey(), cur.getSmallestKey()) >= 0) {
        throw new IllegalArgumentException(
            "compaction delta on version " + versionId + " refused: in level "
                + level.getLevelIndex() + " sst " + prev.getId() + " " + range(prev)
                + " overlaps sst " + cur.getId() + " " + range(cur)
                + "; SSTs of a level >= 1 must not overlap, include the overlapping SSTs"
                + " as compaction inputs");
      }
    }
    return Level.newBuilder().setLevelIndex(level.getLevelIndex()).addAllSsts(merged).build();
  }

  private static void checkNewSst(String kind, StoreVersion version, SstInfo sst, Set<Long> ids) {
    if (!ids.add(sst.getId())) {
      throw new IllegalArgumentException(
          kind + " delta on version " + version.getId() + " refused: sst id " + sst.getId()
              + " is already in the version or twice in the delta; SST ids must be unique");
    }
    if (StoreKeys.compare(sst.getSmallestKey(), sst.getLargestKey()) > 0) {
      throw new IllegalArgumentException(
          kind + " delta on version " + version.getId() + " refused: sst " + sst.getId()
              + " has smallest_key above largest_key " + range(sst));
    }
  }

  private static Set<Long> idsOf(StoreVersion version) {
    Set<Long> ids = new HashSet<>();
    for (SstInfo sst : allSsts(version)) {
      ids.add(sst.getId());
    }
    return ids;
  }

  private static boolean overlaps(SstInfo a, SstInfo b) {
    return StoreKeys.compare(a.getSmallestKey(), b.getLargestKey()) <= 0
        && StoreKeys.compare(b.getSmallestKey(), a.getLargestKey()) <= 0;
  }

  private static String range(SstInfo sst) {
    return "[" + StoreKeys.toHex(sst.getSmallestKey()) + ", "
        + StoreKeys.toHex(sst.getLargestKey()) + "]";
  }

  private static final Comparator<SstInfo> BY_SMALLEST_KEY =
      (a, b) -> StoreKeys.compare(a.getSmallestKey(), b.getSmallestKey());
}
