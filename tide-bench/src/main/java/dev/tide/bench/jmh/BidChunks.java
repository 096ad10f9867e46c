package dev.tide.bench.jmh;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import java.util.ArrayList;
import java.util.List;

/** Full chunks of Nexmark bids, built once, as the kernels' input. */
final class BidChunks {
  private BidChunks() {}

  /** {@code count} chunks of {@link StreamChunk#DEFAULT_CAPACITY} inserted bids, ordinals from 0. */
  static List<StreamChunk> of(int count) {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults());
    ChunkBuilder b = new ChunkBuilder(NexmarkTable.BID.schema().types(), StreamChunk.DEFAULT_CAPACITY);
    List<StreamChunk> out = new ArrayList<>();
    for (long ordinal = 0; out.size() < count; ordinal++) {
      g.appendRow(NexmarkTable.BID, ordinal, b);
      StreamChunk full = b.finishRow(Op.INSERT.code());
      if (full != null) {
        out.add(full);
      }
    }
    return out;
  }
}
