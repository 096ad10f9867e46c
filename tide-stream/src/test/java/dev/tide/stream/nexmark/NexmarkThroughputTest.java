package dev.tide.stream.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Prints the single-thread rate, per second of the thread's CPU time (the machine may be shared), of {@link NexmarkGenerator#appendRow} and of {@link NexmarkBatch}
 * (every column, and the bid columns q0 reads) per table. A rough figure for notes, not a benchmark
 * harness and not asserted: {@code main} runs it standalone with more rows.
 */
class NexmarkThroughputTest {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  /** auction, bidder, price, date_time, _row_id: what q0, q1 and q7 read of a bid. */
  private static final int[] BID_LONG_COLUMNS = {0, 1, 2, 5, 7};

  @Test
  void reportsGenerationThroughput() {
    run(1_000_000, 3);
  }

  public static void main(String[] args) {
    run(args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L, 5);
  }

  private static void run(long rows, int rounds) {
    for (NexmarkTable t : NexmarkTable.values()) {
      assertThat(measureAppendRow(t, rows, rounds)).isPositive();
      assertThat(measureBatch(t, IntStream.range(0, t.schema().size()).toArray(), rows, rounds)).isPositive();
    }
    assertThat(measureBatch(NexmarkTable.BID, BID_LONG_COLUMNS, rows, rounds)).isPositive();
  }

  /** Best of {@code rounds} runs of {@code rows} rows; returns a checksum so the work is not dead. */
  private static long measureAppendRow(NexmarkTable t, long rows, int rounds) {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults());
    ChunkBuilder out = new ChunkBuilder(t.schema().types(), StreamChunk.DEFAULT_CAPACITY);
    byte insert = Op.INSERT.code();
    long checksum = 0;
    double best = 0;
    for (int round = 0; round < rounds; round++) {
      long start = THREADS.getCurrentThreadCpuTime();
      for (long k = 0; k < rows; k++) {
        g.appendRow(t, k, out);
        StreamChunk c = out.finishRow(insert);
        if (c != null) {
          checksum += c.size();
        }
      }
      long nanos = THREADS.getCurrentThreadCpuTime() - start;
      best = Math.max(best, rows * 1e9 / nanos);
    }
    System.out.printf("nexmark appendRow %-7s all columns %,.0f rows per CPU s (best of %d x %,d rows)%n", t, best, rounds, rows);
    return checksum + 1;
  }

  private static long measureBatch(NexmarkTable t, int[] columns, long rows, int rounds) {
    NexmarkGenerator g = new NexmarkGenerator(NexmarkConfig.defaults());
    NexmarkBatch batch = g.batch(t, columns, StreamChunk.DEFAULT_CAPACITY);
    long checksum = 0;
    double best = 0;
    for (int round = 0; round < rounds; round++) {
      long start = THREADS.getCurrentThreadCpuTime();
      for (long k = 0; k < rows; k++) {
        batch.add(k);
        if (batch.isFull()) {
          checksum += batch.take().size();
        }
      }
      long nanos = THREADS.getCurrentThreadCpuTime() - start;
      best = Math.max(best, rows * 1e9 / nanos);
    }
    String what = columns.length == t.schema().size() ? "all columns" : columns.length + " columns";
    System.out.printf("nexmark batch     %-7s %-11s %,.0f rows per CPU s (best of %d x %,d rows)%n", t, what, best, rounds, rows);
    return checksum + 1;
  }
}
