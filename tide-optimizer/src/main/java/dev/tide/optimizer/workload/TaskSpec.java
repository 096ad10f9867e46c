package dev.tide.optimizer.workload;

import com.google.protobuf.ByteString;
import dev.tide.proto.store.SstInfo;
import java.util.List;
import java.util.Objects;

/**
 * The work of one compaction task: merge {@code inputs} restricted to {@code [fromKey, toKey)} into
 * non-overlapping SSTs of level 1.
 *
 * @param tableId the one state table every input holds
 * @param inputs by priority: for equal keys the earlier input wins (L0 newest first, then L1)
 * @param fromKey inclusive lower bound
 * @param toKey exclusive upper bound; empty for the end of the table
 * @param dropTombstones whether deletions may be dropped: no older data of the range is left below
 * @param targetFileBytes size at which output files are cut
 */
public record TaskSpec(long tableId, List<SstInfo> inputs, ByteString fromKey, ByteString toKey, boolean dropTombstones,
    long targetFileBytes) {
  public TaskSpec {
    inputs = List.copyOf(inputs);
    Objects.requireNonNull(fromKey, "fromKey");
    Objects.requireNonNull(toKey, "toKey");
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("compaction task of table " + tableId + " needs at least one input SST");
    }
    if (targetFileBytes < 1) {
      throw new IllegalArgumentException("compaction task of table " + tableId + ": target file bytes " + targetFileBytes
          + " must be at least 1");
    }
  }
}
