package dev.tide.stream.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import org.junit.jupiter.api.Test;

/**
 * Prints the single-thread rate of {@link NexmarkGenerator#appendRow} per table. A rough figure for
 * notes, not a benchmark harness and not asserted: {@code main} runs it standalone with more rows.
 */
class NexmarkThroughputTest {

  @Test
  void reportsAppendRowThroughput() {
    for (NexmarkTable t : NexmarkTable.values()) {
      assertThat(measure(t, 2_000_000, 3)).isPositive();
    }
  }

  public static void main(String[] args) {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
    for (NexmarkTable t : NexmarkTable.values()) {
      measure(t, rows, 5);
    }
  }

  /** Best of {@code rounds} runs of {@code rows} rows; returns a checksum so the work is not dead. */
  private static long measure(NexmarkTable t, long rows, int rounds) {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults());
    ChunkBuilder out = new ChunkBuilder(t.schema().types(), StreamChunk.DEFAULT_CAPACITY);
    byte insert = Op.INSERT.code();
    long checksum = 0;
    double best = 0;
    for (int round = 0; round < rounds; round++) {
      long start = System.nanoTime();
      for (long k = 0; k < rows; k++) {
        g.appendRow(t, k, out);
        StreamChunk c = out.finishRow(insert);
        if (c != null) {
          checksum += c.size();
        }
      }
      long nanos = System.nanoTime() - start;
      best = Math.max(best, rows * 1e9 / nanos);
    }
    System.out.printf("nexmark appendRow %-7s %,.0f rows/s (best of %d x %,d rows)%n", t, best, rounds, rows);
    return checksum + 1;
  }
}
