package dev.tide.bench.jmh;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeHasher;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Vnode of every row of a 1024-row bid chunk: the hash every exchange and state table computes. Score: ns per row. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ChunkHashBenchmark {
  static final int CHUNKS = 16;

  /** Column indexes of the key: auction (BIGINT), or channel (VARCHAR) and auction. */
  @Param({"0", "3,0"})
  public String key;

  private List<StreamChunk> chunks;
  private int[] keyColumns;
  private final VnodeHasher hasher = new VnodeHasher();
  private int[] out = new int[StreamChunk.DEFAULT_CAPACITY];

  @Setup
  public void setup() {
    chunks = BidChunks.of(CHUNKS);
    String[] k = key.split(",");
    keyColumns = new int[k.length];
    for (int i = 0; i < k.length; i++) {
      keyColumns[i] = Integer.parseInt(k[i]);
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS * StreamChunk.DEFAULT_CAPACITY)
  public int vnodes() {
    int sum = 0;
    for (StreamChunk c : chunks) {
      out = hasher.vnodes(c, keyColumns, VnodeHasher.DEFAULT_VNODE_COUNT, out);
      sum += out[0];
    }
    return sum;
  }
}
