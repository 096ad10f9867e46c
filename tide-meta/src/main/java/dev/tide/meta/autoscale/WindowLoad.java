package dev.tide.meta.autoscale;

import java.util.List;

/**
 * A fragment's load over a window of epochs, derived from its {@link LoadSample}s.
 *
 * @param samples epochs in the window
 * @param seconds the window's duration (sum of the epochs' durations)
 * @param inRate rows read (a source: produced) per second, by the whole fragment
 * @param outRate rows dispatched per second
 * @param busy busy fraction of the actors' time, 0..1
 * @param blocked fraction of the actors' time blocked on output (backpressure), 0..1
 * @param trueRate rows one actor processes per second of busy time (DS2's true processing rate);
 *     NaN when the fragment read nothing
 * @param backlog the newest epoch's backlog (rows), -1 if not known
 * @param backlogGrowth backlog change per second over the window (negative: catching up); 0 if not known
 */
public record WindowLoad(int samples, double seconds, double inRate, double outRate, double busy, double blocked, double trueRate,
    long backlog, double backlogGrowth) {

  /** Below this busy fraction the true rate is taken at this floor: an idle fragment's rate is not measurable. */
  static final double MIN_BUSY = 0.01;

  /** The load of {@code samples} (oldest first); null when there are none. */
  public static WindowLoad of(List<LoadSample> samples) {
    if (samples.isEmpty()) {
      return null;
    }
    double seconds = 0;
    long elapsed = 0;
    long busy = 0;
    long blocked = 0;
    long in = 0;
    long out = 0;
    for (LoadSample s : samples) {
      seconds += s.seconds();
      elapsed += s.elapsedNanos();
      busy += s.busyNanos();
      blocked += s.blockedNanos();
      in += s.rowsIn();
      out += s.rowsOut();
    }
    if (seconds <= 0 || elapsed <= 0) {
      return null;
    }
    double busyFraction = (double) busy / elapsed;
    double busySeconds = Math.max(busy, elapsed * MIN_BUSY) / 1e9;
    double trueRate = in == 0 ? Double.NaN : in / busySeconds;
    LoadSample first = samples.get(0);
    LoadSample last = samples.get(samples.size() - 1);
    double growth = 0;
    if (first.backlog() >= 0 && last.backlog() >= 0 && last.atMs() > first.atMs()) {
      growth = (last.backlog() - first.backlog()) * 1000.0 / (last.atMs() - first.atMs());
    }
    return new WindowLoad(samples.size(), seconds, in / seconds, out / seconds, busyFraction, (double) blocked / elapsed, trueRate,
        last.backlog(), growth);
  }

  /** Rows out per row in (1 when nothing came in). */
  public double selectivity() {
    return inRate > 0 ? outRate / inRate : 1;
  }
}
