package dev.tide.cli.bench;

/**
 * One committed epoch as the {@link RescaleProbe} saw it.
 *
 * @param epoch the committed epoch
 * @param observedNanos {@link System#nanoTime()} when the probe first saw it committed
 * @param injectNanos when the barrier that closed the epoch was injected (the moment the sources
 *     saved the offsets below), on the same clock; {@link #UNKNOWN} if meta's statistics had
 *     already moved on to a later epoch
 * @param barrierLatencyMs injection to commit of that barrier, or -1 if unknown
 * @param nextEventIds per split of the live source, the event id of its next bid: the point its
 *     fixed-rate schedule had reached
 * @param stateBytes sum of the committed SSTs' file sizes
 * @param sstCount committed SSTs
 */
public record RescaleCommit(long epoch, long observedNanos, long injectNanos, long barrierLatencyMs, long[] nextEventIds,
    long stateBytes, int sstCount) {
  public static final long UNKNOWN = Long.MIN_VALUE;

  public boolean injectKnown() {
    return injectNanos != UNKNOWN;
  }
}
