package dev.tide.bench.jmh;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeHasher;
import dev.tide.stream.actor.Channel;
import dev.tide.stream.actor.Dispatcher;
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

/**
 * A hash exchange's sending side: {@link Dispatcher.Hash} splits 1024-row bid chunks by the vnode of
 * the auction among its outputs (vnodes dealt round-robin) and the channels are drained. Score: ns per row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class VnodeDispatchBenchmark {
  static final int CHUNKS = 8;

  @Param({"1", "4"})
  public int outputs;

  private List<StreamChunk> chunks;
  private Channel[] channels;
  private Dispatcher dispatcher;

  @Setup
  public void setup() {
    chunks = BidChunks.of(CHUNKS);
    channels = new Channel[outputs];
    for (int i = 0; i < outputs; i++) {
      channels[i] = new Channel(CHUNKS + 1);
    }
    int[] owner = new int[VnodeHasher.DEFAULT_VNODE_COUNT];
    for (int v = 0; v < owner.length; v++) {
      owner[v] = v % outputs;
    }
    dispatcher = new Dispatcher.Hash(channels, new int[] {0}, owner);
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS * StreamChunk.DEFAULT_CAPACITY)
  public int dispatch() throws InterruptedException {
    for (StreamChunk c : chunks) {
      dispatcher.dispatch(c);
    }
    int drained = 0;
    for (Channel ch : channels) {
      while (ch.poll() != null) {
        drained++;
      }
    }
    return drained;
  }
}
