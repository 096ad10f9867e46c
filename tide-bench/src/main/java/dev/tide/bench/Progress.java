package dev.tide.bench;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Samples how many rows a run's sources have produced, every few milliseconds from submission until
 * {@link #stop}, on a thread of its own. Both engines are sampled the same way (Tide: its source
 * actors' live counters; Flink: its source readers' counter), so the curve and the steady rate of the
 * two are measured at the same point: the sources, which backpressure holds to the pace of the
 * slowest stage once the pipeline's buffers are full.
 */
public final class Progress {
  private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final LongSupplier rows;
  private final long start = System.nanoTime();
  private final Thread thread;
  private volatile boolean stopped;
  private long[] nanos = new long[4096];
  private long[] counts = new long[4096];
  private int size;

  private Progress(LongSupplier rows) {
    this.rows = rows;
    this.thread = new Thread(this::run, "bench-progress");
    thread.setDaemon(true);
  }

  /** Starts sampling {@code rows} now (call it right before the job is submitted). */
  public static Progress start(LongSupplier rows) {
    Progress p = new Progress(rows);
    p.add();
    p.thread.start();
    return p;
  }

  private void run() {
    while (!stopped) {
      synchronized (this) {
        add();
      }
      try {
        TimeUnit.NANOSECONDS.sleep(PERIOD_NANOS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void add() {
    if (size == nanos.length) {
      nanos = Arrays.copyOf(nanos, size * 2);
      counts = Arrays.copyOf(counts, size * 2);
    }
    nanos[size] = System.nanoTime() - start;
    counts[size] = rows.getAsLong();
    size++;
  }

  /** Stops sampling and returns what was seen, with {@code totalRows} (what the sources produce in all) as the last sample. */
  public Timeline stop(long totalRows) throws InterruptedException {
    stopped = true;
    thread.interrupt();
    thread.join();
    synchronized (this) {
      long end = System.nanoTime() - start;
      int n = size;
      long[] t = Arrays.copyOf(nanos, n + 1);
      long[] c = Arrays.copyOf(counts, n + 1);
      t[n] = end;
      c[n] = Math.max(totalRows, c[n - 1]);
      return new Timeline(t, c);
    }
  }

  /**
   * Rows produced over time: {@code counts[i]} rows at {@code nanos[i]} after submission, both
   * non-decreasing; the last entry is the end of the run.
   */
  public record Timeline(long[] nanos, long[] counts) {
    /** Nanoseconds after submission at which the count first reached {@code rows}, interpolated between samples. */
    public double nanosAt(double rows) {
      if (rows <= counts[0]) {
        return nanos[0];
      }
      for (int i = 1; i < counts.length; i++) {
        if (counts[i] >= rows) {
          double span = counts[i] - counts[i - 1];
          double f = span == 0 ? 1 : (rows - counts[i - 1]) / span;
          return nanos[i - 1] + f * (nanos[i] - nanos[i - 1]);
        }
      }
      return nanos[nanos.length - 1];
    }

    public long totalRows() {
      return counts[counts.length - 1];
    }

    /**
     * Events per second over the part of the run between two fractions of its input (for example
     * 0.2 and 0.9: past start-up, before the last rows drain), where the run reads {@code events}
     * events in all.
     */
    public double eventsPerSecond(long events, double from, double to) {
      double rows = totalRows();
      double nanosBetween = nanosAt(to * rows) - nanosAt(from * rows);
      return nanosBetween <= 0 ? Double.NaN : (to - from) * events * 1e9 / nanosBetween;
    }

    /** Events per second within each consecutive window of {@code window} events (the last window may be shorter). */
    public double[] windows(long events, long window) {
      int n = (int) ((events + window - 1) / window);
      double[] out = new double[n];
      double rowsPerEvent = (double) totalRows() / events;
      double prev = nanosAt(0);
      for (int k = 0; k < n; k++) {
        long to = Math.min(events, (k + 1) * window);
        double at = nanosAt(to * rowsPerEvent);
        long width = to - (long) k * window;
        out[k] = at > prev ? width * 1e9 / (at - prev) : Double.NaN;
        prev = at;
      }
      return out;
    }
  }
}
