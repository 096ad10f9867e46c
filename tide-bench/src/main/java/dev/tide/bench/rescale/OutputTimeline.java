package dev.tide.bench.rescale;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Records sink outputs per {@link #BUCKET_NANOS} bucket from a start instant, lock-free, so a Flink
 * sink writer in this JVM can report when output happened. What {@link FlinkRescale} measures the
 * processing gap and the throughput timeline from.
 *
 * <p>Thread-safety: {@link #record} from any number of threads; reads are racy snapshots.
 */
public final class OutputTimeline {
  public static final long BUCKET_NANOS = 10_000_000L;

  private final long startNanos;
  private final AtomicLongArray counts;

  /** @param spanNanos how long after {@code startNanos} outputs are recorded; later ones are dropped */
  public OutputTimeline(long startNanos, long spanNanos) {
    this.startNanos = startNanos;
    this.counts = new AtomicLongArray((int) (spanNanos / BUCKET_NANOS) + 1);
  }

  public void record(long nowNanos, long n) {
    long b = (nowNanos - startNanos) / BUCKET_NANOS;
    if (b >= 0 && b < counts.length()) {
      counts.addAndGet((int) b, n);
    }
  }

  /** Outputs between two instants (bucket resolution). */
  public long outputs(long fromNanos, long toNanos) {
    long sum = 0;
    for (int b = bucket(fromNanos); b < bucket(toNanos); b++) {
      sum += counts.get(b);
    }
    return sum;
  }

  /** The longest run of empty buckets between two instants, in ms: the longest time with no output. */
  public double longestGapMs(long fromNanos, long toNanos) {
    int best = 0;
    int run = 0;
    for (int b = bucket(fromNanos); b < bucket(toNanos); b++) {
      run = counts.get(b) == 0 ? run + 1 : 0;
      best = Math.max(best, run);
    }
    return best * (BUCKET_NANOS / 1e6);
  }

  private int bucket(long nanos) {
    return (int) Math.max(0, Math.min(counts.length(), (nanos - startNanos) / BUCKET_NANOS));
  }
}
