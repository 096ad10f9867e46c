package dev.tide.stream.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.actor.Channel;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Prints records per second through one remote exchange link on loopback (Netty gRPC, one JVM, both
 * ends on this machine's cores) with 1024-row chunks of the Nexmark bid stream, and the codec alone.
 * A rough figure for notes, not asserted: {@code main} runs it longer.
 */
class ExchangeThroughputTest {

  @Test
  void reportsLoopbackThroughput() throws Exception {
    assertThat(measure(1000, 2)).isPositive();
  }

  public static void main(String[] args) throws Exception {
    measure(args.length > 0 ? Integer.parseInt(args[0]) : 10_000, 5);
  }

  private static StreamChunk[] bidChunks(int count) {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults());
    ChunkBuilder b = new ChunkBuilder(NexmarkTable.BID.schema().types(), StreamChunk.DEFAULT_CAPACITY);
    StreamChunk[] out = new StreamChunk[count];
    long k = 0;
    for (int i = 0; i < count; ) {
      g.appendRow(NexmarkTable.BID, k++, b);
      StreamChunk c = b.finishRow(Op.INSERT.code());
      if (c != null) {
        out[i++] = c;
      }
    }
    return out;
  }

  /** Best of {@code rounds} runs of {@code chunks} chunks; returns the rows received. */
  static long measure(int chunks, int rounds) throws Exception {
    StreamChunk[] data = bidChunks(64);
    int bytesPerChunk = ChunkCodec.encode(data[0]).length;

    double codecRate = 0;
    for (int round = 0; round < rounds; round++) {
      long codecStart = System.nanoTime();
      long decodedRows = 0;
      for (int i = 0; i < chunks; i++) {
        decodedRows += ChunkCodec.decode(ChunkCodec.encode(data[i % data.length])).size();
      }
      codecRate = Math.max(codecRate, decodedRows * 1e9 / (System.nanoTime() - codecStart));
    }

    ExchangeConfig config = ExchangeConfig.defaults();
    long received = 0;
    double best = 0;
    try (LoopbackNode a = new LoopbackNode("A", Channel.DEFAULT_CAPACITY, config);
        LoopbackNode b = new LoopbackNode("B", Channel.DEFAULT_CAPACITY, config)) {
      for (int round = 0; round < rounds; round++) {
        long up = 1000L + round;
        RemoteOutput out = a.open(b, up, 1);
        Channel in = b.channels.channel(up, 1);
        long start = System.nanoTime();
        CompletableFuture<Void> sending = RemoteExchangeTest.async(() -> {
          for (int i = 0; i < chunks; i++) {
            out.send(data[i % data.length]);
          }
          out.close();
        });
        in.bindConsumer(Thread.currentThread());
        long rows = 0;
        for (int got = 0; got < chunks; ) {
          Object m = in.poll();
          if (m == null) {
            LockSupport.park();
            continue;
          }
          rows += ((StreamChunk) m).size();
          got++;
        }
        long nanos = System.nanoTime() - start;
        sending.get(60, TimeUnit.SECONDS);
        received += rows;
        best = Math.max(best, rows * 1e9 / nanos);
      }
    }
    System.out.printf("exchange loopback: %,.0f records/s, %,.0f MB/s (bid chunks of 1024 rows, %,d B encoded, window %d,"
            + " best of %d x %,d chunks); codec alone (encode + decode, one thread) %,.0f records/s%n",
        best, best / 1024 * bytesPerChunk / 1e6, bytesPerChunk, config.windowMessages(), rounds, chunks, codecRate);
    return received;
  }
}
