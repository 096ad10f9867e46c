package dev.tide.cli.bench;

import java.util.List;

/**
 * The figures of one reschedule (see {@link RescaleAnalysis} for how they are measured).
 *
 * @param label e.g. {@code "2 -> 4"}
 * @param stateBytes committed SST bytes when the reschedule was requested
 * @param sstCount committed SSTs then
 * @param requestToCommitMs from the request until the job was seen no longer rescheduling (its
 *     barrier's epoch committed)
 * @param barrierLatencyMs injection to commit of the reschedule's barrier, by meta's clock
 * @param allSplitsStallMs the shortest stall of a live split: the shortfall all splits had at
 *     once, the longest the whole source could have stood still
 * @param worstSplitStallMs the longest any live split fell behind its schedule
 * @param skewMs how far the leading live split was ahead of the last one at the request
 * @param noiseFloorMs the worst split's figure over as many windows before the request
 * @param secondsToSteady from the request until the first of {@link RescaleAnalysis#STEADY_WINDOWS}
 *     windows within the band; NaN if throughput did not settle
 * @param steadyBefore whether every window before the request was within the band around the rate
 * @param eventsPerSecondBefore throughput over the windows before the request
 * @param eventsPerSecondAfter throughput from the first steady window after it (never window 0) to
 *     the last window observed; if throughput did not settle, from window 1 on
 * @param timeline throughput per window around the reschedule
 */
public record RescaleOutcome(String label, long stateBytes, int sstCount, double requestToCommitMs, long barrierLatencyMs,
    double allSplitsStallMs, double worstSplitStallMs, double skewMs, double noiseFloorMs, double secondsToSteady,
    boolean steadyBefore, double eventsPerSecondBefore, double eventsPerSecondAfter, List<Point> timeline) {

  public boolean settled() {
    return !Double.isNaN(secondsToSteady);
  }

  /**
   * One window of the timeline.
   *
   * @param index 0 for the window the reschedule's barrier opens, negative before it
   * @param startSeconds its start relative to the request
   * @param seconds its length
   * @param eventsPerSecond the live source's throughput in it
   */
  public record Point(int index, double startSeconds, double seconds, double eventsPerSecond) {}
}
