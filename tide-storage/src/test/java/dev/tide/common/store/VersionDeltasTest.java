package dev.tide.common.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.store.VersionDelta;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tests of {@link VersionDeltas} (kept in tide-storage's test tree because tide-common has no test
 * setup of its own yet).
 */
class VersionDeltasTest {
  private static SstInfo sst(long id, String smallest, String largest, long minEpoch,
      long maxEpoch) {
    return SstInfo.newBuilder()
        .setId(id)
        .setObjectPath("state/" + id + ".sst")
        .setSmallestKey(ByteString.copyFromUtf8(smallest))
        .setLargestKey(ByteString.copyFromUtf8(largest))
        .setMinEpoch(minEpoch)
        .setMaxEpoch(maxEpoch)
        .build();
  }

  private static List<Long> ids(List<SstInfo> ssts) {
    return ssts.stream().map(SstInfo::getId).toList();
  }

  private static StoreVersion checkpoint(StoreVersion v, long epoch, SstInfo... ssts) {
    return VersionDeltas.apply(v, VersionDeltas.checkpoint(v, epoch, List.of(ssts)));
  }

  @Test
  void emptyVersion() {
    StoreVersion v = VersionDeltas.empty();
    assertThat(v.getId()).isZero();
    assertThat(v.getMaxCommittedEpoch()).isZero();
    assertThat(v.hasL0()).isTrue();
    assertThat(VersionDeltas.allSsts(v)).isEmpty();
  }

  @Test
  void checkpointsPrependToL0() {
    StoreVersion v1 = checkpoint(VersionDeltas.empty(), 3, sst(1, "a", "m", 1, 3));
    StoreVersion v2 = checkpoint(v1, 5, sst(2, "c", "z", 4, 5), sst(3, "0", "1", 5, 5));
    assertThat(v2.getId()).isEqualTo(2);
    assertThat(v2.getMaxCommittedEpoch()).isEqualTo(5);
    assertThat(ids(v2.getL0().getSstsList())).containsExactly(2L, 3L, 1L);
    assertThat(VersionDeltas.sstCount(v2)).isEqualTo(3);
    // an empty checkpoint only advances the epoch
    StoreVersion v3 = checkpoint(v2, 6);
    assertThat(v3.getId()).isEqualTo(3);
    assertThat(v3.getMaxCommittedEpoch()).isEqualTo(6);
    assertThat(ids(VersionDeltas.allSsts(v3))).containsExactly(2L, 3L, 1L);
  }

  @Test
  void compactionMovesL0IntoASortedLevel() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "f", 1, 1));
    v = checkpoint(v, 2, sst(2, "d", "k", 2, 2));
    v = checkpoint(v, 3, sst(3, "x", "z", 3, 3));
    // compact the two oldest into L2 (L1 is created empty)
    StoreVersion c = VersionDeltas.apply(v, VersionDeltas.compaction(v, List.of(1L, 2L), 2,
        List.of(sst(11, "g", "k", 1, 2), sst(10, "a", "f", 1, 2))));
    assertThat(c.getId()).isEqualTo(v.getId() + 1);
    assertThat(c.getMaxCommittedEpoch()).isEqualTo(3);
    assertThat(ids(c.getL0().getSstsList())).containsExactly(3L);
    assertThat(c.getLevelsCount()).isEqualTo(2);
    assertThat(c.getLevels(0).getLevelIndex()).isEqualTo(1);
    assertThat(c.getLevels(0).getSstsList()).isEmpty();
    assertThat(c.getLevels(1).getLevelIndex()).isEqualTo(2);
    assertThat(ids(c.getLevels(1).getSstsList())).containsExactly(10L, 11L);

    // the remaining L0 SST merges into L2 next to the others
    StoreVersion d = VersionDeltas.apply(c, VersionDeltas.compaction(c, List.of(3L), 2,
        List.of(sst(12, "x", "z", 3, 3))));
    assertThat(d.getL0().getSstsList()).isEmpty();
    assertThat(ids(d.getLevels(1).getSstsList())).containsExactly(10L, 11L, 12L);

    // a compaction may also just drop SSTs (e.g. everything deleted)
    StoreVersion e = VersionDeltas.apply(d, VersionDeltas.compaction(d, List.of(11L), 2,
        List.of()));
    assertThat(ids(VersionDeltas.allSsts(e))).containsExactly(10L, 12L);
  }

  @Test
  void stalePrevVersionIsRefused() {
    StoreVersion v1 = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "b", 1, 1));
    VersionDelta stale = VersionDeltas.checkpoint(VersionDeltas.empty(), 2, List.of());
    assertThatThrownBy(() -> VersionDeltas.apply(v1, stale))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("built on version 0")
        .hasMessageContaining("current version is 1");
  }

  @Test
  void decreasingEpochIsRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 5);
    assertThatThrownBy(() -> checkpoint(v, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max_committed_epoch 4")
        .hasMessageContaining("committed epoch 5");
  }

  @Test
  void checkpointSstWithEpochOutsideTheCheckpointIsRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 5);
    assertThatThrownBy(() -> checkpoint(v, 7, sst(1, "a", "b", 5, 6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sst 1 holds epochs [5, 6]")
        .hasMessageContaining("(5, 7]");
    assertThatThrownBy(() -> checkpoint(v, 7, sst(1, "a", "b", 6, 8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[6, 8]");
  }

  @Test
  void duplicateSstIdIsRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "b", 1, 1));
    assertThatThrownBy(() -> checkpoint(v, 2, sst(1, "c", "d", 2, 2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sst id 1");
  }

  @Test
  void unknownSstIdIsRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "b", 1, 1));
    assertThatThrownBy(() -> VersionDeltas.apply(v,
        VersionDeltas.compaction(v, List.of(1L, 99L), 1, List.of(sst(5, "a", "b", 1, 1)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sst 99")
        .hasMessageContaining("not in the version");
  }

  @Test
  void overlapInALevelIsRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "f", 1, 1));
    StoreVersion l1 = VersionDeltas.apply(v,
        VersionDeltas.compaction(v, List.of(1L), 1, List.of(sst(2, "a", "f", 1, 1))));
    StoreVersion w = checkpoint(l1, 2, sst(3, "e", "h", 2, 2));
    // output [e, h] overlaps sst 2 [a, f] which is not an input
    assertThatThrownBy(() -> VersionDeltas.apply(w,
        VersionDeltas.compaction(w, List.of(3L), 1, List.of(sst(4, "e", "h", 2, 2)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sst 2")
        .hasMessageContaining("sst 4")
        .hasMessageContaining("overlaps");
    // overlapping outputs among themselves, too
    assertThatThrownBy(() -> VersionDeltas.apply(w, VersionDeltas.compaction(w,
        List.of(2L, 3L), 1, List.of(sst(5, "a", "f", 1, 2), sst(6, "f", "h", 1, 2)))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
  }

  @Test
  void movingNewerL0DataBelowAnOlderOverlappingL0SstIsRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "f", 1, 1));
    v = checkpoint(v, 2, sst(2, "c", "k", 2, 2));
    StoreVersion w = v;
    assertThatThrownBy(() -> VersionDeltas.apply(w,
        VersionDeltas.compaction(w, List.of(2L), 1, List.of(sst(3, "c", "k", 2, 2)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("L0 sst 1")
        .hasMessageContaining("oldest L0 SSTs first");
  }

  @Test
  void mixedOrMalformedDeltasAreRefused() {
    StoreVersion v = checkpoint(VersionDeltas.empty(), 1, sst(1, "a", "f", 1, 1));
    VersionDelta mixed = VersionDelta.newBuilder()
        .setPrevVersionId(v.getId())
        .setMaxCommittedEpoch(2)
        .addAddL0(sst(2, "a", "b", 2, 2))
        .addRemoveSstIds(1)
        .build();
    assertThatThrownBy(() -> VersionDeltas.apply(v, mixed))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("either");
    assertThatThrownBy(() -> VersionDeltas.apply(v,
        VersionDeltas.compaction(v, List.of(1L), 0, List.of(sst(2, "a", "f", 1, 1)))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target_level 0");
    VersionDelta epochChange = VersionDeltas.compaction(v, List.of(1L), 1, List.of())
        .toBuilder().setMaxCommittedEpoch(9).build();
    assertThatThrownBy(() -> VersionDeltas.apply(v, epochChange))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_committed_epoch 9");
    assertThatThrownBy(() -> VersionDeltas.apply(v,
        VersionDeltas.compaction(v, List.of(1L, 1L), 1, List.of())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
  }
}
