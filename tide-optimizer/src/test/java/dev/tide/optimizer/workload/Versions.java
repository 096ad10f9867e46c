package dev.tide.optimizer.workload;

import com.google.protobuf.ByteString;
import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.List;

/** Hand-built versions of single-table SSTs for the workload tests. */
final class Versions {
  private Versions() {}

  static ByteString key(long table, int vnode) {
    return CompactionPlanner.tablePrefix(table).concat(ByteString.copyFrom(new byte[] {(byte) (vnode >>> 8), (byte) vnode, 1}));
  }

  static SstInfo sst(long id, long table, int vnodeLo, int vnodeHi, long bytes, long epoch) {
    return SstInfo.newBuilder().setId(id).setObjectPath("state/" + id + ".sst").setSmallestKey(key(table, vnodeLo))
        .setLargestKey(key(table, vnodeHi)).setMinEpoch(epoch).setMaxEpoch(epoch).setFileSize(bytes).setKeyCount(10)
        .addTableIds((int) table).build();
  }

  /** A version whose L0 holds {@code filesPerTable} SSTs of each table, one checkpoint each. */
  static StoreVersion withL0(int filesPerTable, long... tables) {
    StoreVersion v = VersionDeltas.empty();
    long id = 1;
    for (int f = 0; f < filesPerTable; f++) {
      long epoch = f + 1;
      List<SstInfo> add = new java.util.ArrayList<>();
      for (long t : tables) {
        add.add(sst(id++, t, 0, 255, 1000, epoch));
      }
      v = VersionDeltas.apply(v, VersionDeltas.checkpoint(v, epoch, add));
    }
    return v;
  }
}
