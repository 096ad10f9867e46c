package dev.tide.cli.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns the committed epochs around one reschedule into its figures. Pure: no clock, no cluster.
 *
 * <h2>Method</h2>
 *
 * The live source is paced on a schedule: every split emits event id {@code e} once the stream's
 * clock, advancing {@code rate} event ids per second, has passed {@code e}. The offsets a split
 * saves at a barrier therefore tell how far along its schedule it was when the barrier was
 * injected. Between two barriers {@code D} seconds apart a split that never stopped advances
 * {@code rate * D} ids; one that stopped for {@code t} seconds and then resumed on schedule
 * advances {@code rate * (D - t)}. The <i>deficit</i> of a window is {@code D - advance / rate}, and
 * the stall of a split is the largest sum of deficits over consecutive windows: the most its
 * output fell behind the schedule (a source never runs ahead of it). This holds only while the
 * machine keeps up with the rate; {@link RescaleOutcome#steadyBefore()} tells. The smallest of the
 * splits' stalls is the shortfall they all had at once (they all meet the same barriers): the
 * longest the whole source could have stood still. The largest is the longest gap of one split.
 *
 * <p>An actor paces all its splits on one clock started at its slowest split, so after a
 * reschedule a split that was ahead of the others of its new actor also waits for them: the
 * largest stall includes the skew between splits at the request, which is reported beside it.
 *
 * <p>Resolution: the barrier's injection is dated to about a millisecond (see {@link RescaleProbe}),
 * and a split's offsets move in steps of about {@code splits * 50 / 46} event ids (under a
 * millisecond at 20,000 events/s). Blind spot: a gap that the source made up before the next
 * barrier by running faster than the schedule (after back-pressure, sources catch up) leaves no
 * deficit. The {@link RescaleOutcome#noiseFloorMs()} is the same figure over as many windows before
 * the request, where nothing stalls.
 */
public final class RescaleAnalysis {
  /** Throughput within this fraction of the throughput before the request counts as steady. */
  public static final double STEADY_BAND = 0.10;
  /** Consecutive windows within the band that make throughput steady. */
  public static final int STEADY_WINDOWS = 3;
  /** Windows before the request whose throughput is "before". */
  public static final int BEFORE_WINDOWS = 5;
  /** The timeline shows at most this many windows after the reschedule's barrier. */
  static final int TIMELINE_WINDOWS_AFTER = 20;

  private RescaleAnalysis() {}

  /**
   * The live source's output between the injections of two consecutive barriers.
   *
   * @param advance per split, event ids its schedule advanced
   */
  public record Window(long startNanos, long endNanos, long endEpoch, long[] advance) {
    public double seconds() {
      return (endNanos - startNanos) / 1e9;
    }

    /** Event ids per second covered by the whole source: the mean advance of its splits. */
    public double eventsPerSecond() {
      return seconds() <= 0 ? 0 : meanAdvance() / seconds();
    }

    double meanAdvance() {
      double sum = 0;
      for (long a : advance) {
        sum += a;
      }
      return sum / advance.length;
    }

    /** Seconds this split was behind the schedule running at {@code rate} (negative: caught up). */
    double deficitSeconds(int split, double rate) {
      return seconds() - advance[split] / rate;
    }

    double deficitSeconds(double rate) {
      return seconds() - meanAdvance() / rate;
    }
  }

  /** Windows between consecutive commits whose injection time is known, oldest first. */
  public static List<Window> windows(List<RescaleCommit> commits) {
    List<Window> out = new ArrayList<>();
    RescaleCommit prev = null;
    for (RescaleCommit c : commits) {
      if (!c.injectKnown()) {
        continue;
      }
      if (prev != null && c.injectNanos() > prev.injectNanos()) {
        long[] advance = new long[c.nextEventIds().length];
        for (int s = 0; s < advance.length; s++) {
          advance[s] = c.nextEventIds()[s] - prev.nextEventIds()[s];
        }
        out.add(new Window(prev.injectNanos(), c.injectNanos(), c.epoch(), advance));
      }
      prev = c;
    }
    return out;
  }

  /** Largest sum of deficits over consecutive windows, in ms, of one split (or of all with split -1); at least 0. */
  static double longestDeficitMs(List<Window> ws, double rate, int split) {
    double best = 0;
    double run = 0;
    for (Window w : ws) {
      double d = split < 0 ? w.deficitSeconds(rate) : w.deficitSeconds(split, rate);
      run = Math.max(0, run + d);
      best = Math.max(best, run);
    }
    return best * 1000;
  }

  /** Per split, its {@link #longestDeficitMs}. */
  static double[] splitDeficitsMs(List<Window> ws, double rate) {
    int splits = ws.isEmpty() ? 0 : ws.get(0).advance().length;
    double[] out = new double[splits];
    for (int s = 0; s < splits; s++) {
      out[s] = longestDeficitMs(ws, rate, s);
    }
    return out;
  }

  /** Spread of the splits' schedules at a commit, in ms at {@code rate}: how far the leading split is ahead of the last. */
  static double skewMs(RescaleCommit c, double rate) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long id : c.nextEventIds()) {
      min = Math.min(min, id);
      max = Math.max(max, id);
    }
    return rate <= 0 ? 0 : (max - min) / rate * 1000;
  }

  /** Events per second over a run of windows (total advance over total time). */
  static double eventsPerSecond(List<Window> ws) {
    double ids = 0;
    double seconds = 0;
    for (Window w : ws) {
      ids += w.meanAdvance();
      seconds += w.seconds();
    }
    return seconds <= 0 ? 0 : ids / seconds;
  }

  static boolean inBand(double eventsPerSecond, double reference) {
    return Math.abs(eventsPerSecond - reference) <= STEADY_BAND * reference;
  }

  /** Index of the first window at or after {@code from} that starts {@link #STEADY_WINDOWS} windows in band; -1 if none. */
  static int steadyFrom(List<Window> ws, int from, double reference) {
    int run = 0;
    for (int i = Math.max(0, from); i < ws.size(); i++) {
      run = inBand(ws.get(i).eventsPerSecond(), reference) ? run + 1 : 0;
      if (run == STEADY_WINDOWS) {
        return i - STEADY_WINDOWS + 1;
      }
    }
    return -1;
  }

  /** True if the last {@code count} windows are within the band around {@code reference}. */
  public static boolean steadyAtEnd(List<Window> ws, double reference, int count) {
    if (ws.size() < count) {
      return false;
    }
    for (int i = ws.size() - count; i < ws.size(); i++) {
      if (!inBand(ws.get(i).eventsPerSecond(), reference)) {
        return false;
      }
    }
    return true;
  }

  /** Index of the window that ends with the barrier carrying the reschedule (the last one ending at or before it); -1 if none. */
  static int rescheduleWindow(List<Window> ws, long rescheduleEpoch) {
    int r = -1;
    for (int i = 0; i < ws.size(); i++) {
      if (ws.get(i).endEpoch() <= rescheduleEpoch) {
        r = i;
      }
    }
    return r;
  }

  /** True once the windows after the reschedule are steady (or {@code maxWindows} of them were seen). */
  public static boolean settled(List<RescaleCommit> commits, long rescheduleEpoch, int minWindows, int maxWindows) {
    List<Window> ws = windows(commits);
    int r = rescheduleWindow(ws, rescheduleEpoch);
    if (r < 0) {
      return false;
    }
    int after = ws.size() - r - 1;
    if (after >= maxWindows) {
      return true;
    }
    double before = eventsPerSecond(ws.subList(Math.max(0, r - BEFORE_WINDOWS + 1), r + 1));
    int steady = steadyFrom(ws, r + 1, before);
    return after >= minWindows && steady >= 0;
  }

  /**
   * The figures of one reschedule.
   *
   * @param commits commits from steady state before the request until after it settled
   * @param requestNanos when the reschedule was requested
   * @param commitSeenNanos when the job was first seen no longer rescheduling
   * @param rescheduleEpoch the epoch the reschedule's barrier closed (committed then)
   * @param rate the live source's configured rate, events per second
   */
  public static RescaleOutcome analyze(String label, List<RescaleCommit> commits, long requestNanos, long commitSeenNanos,
      long rescheduleEpoch, double rate) {
    List<Window> ws = windows(commits);
    int r = rescheduleWindow(ws, rescheduleEpoch);
    if (r < 0 || r == ws.size() - 1) {
      throw new IllegalStateException("analysis of reschedule " + label + " failed: no committed window "
          + (r < 0 ? "before" : "after") + " epoch " + rescheduleEpoch + " among " + ws.size() + " windows");
    }
    List<Window> beforeWindows = ws.subList(Math.max(0, r - BEFORE_WINDOWS + 1), r + 1);
    double before = eventsPerSecond(beforeWindows);
    boolean steadyBefore = beforeWindows.stream().allMatch(w -> inBand(w.eventsPerSecond(), rate));
    int steady = steadyFrom(ws, r + 1, before);
    int last = ws.size() - 1;
    // From the first steady window on, but never window 0, which holds the stall by construction. Over
    // several windows the dating errors of the inner barriers cancel out.
    List<Window> after = ws.subList(Math.min(last, Math.max(steady, r + 2)), last + 1);
    List<Window> disturbed = ws.subList(r + 1, last + 1);
    List<Window> quiet = ws.subList(Math.max(0, r + 1 - disturbed.size()), r + 1);
    double secondsToSteady = steady < 0 ? Double.NaN : Math.max(0, (ws.get(steady).startNanos() - requestNanos) / 1e9);

    RescaleCommit atRequest = null;
    long latencyMs = -1;
    for (RescaleCommit c : commits) {
      if (c.epoch() <= rescheduleEpoch) {
        atRequest = c;
      }
      if (c.epoch() == rescheduleEpoch) {
        latencyMs = c.barrierLatencyMs();
      }
    }
    List<RescaleOutcome.Point> timeline = new ArrayList<>();
    for (int i = Math.max(0, r - 2); i <= Math.min(last, r + TIMELINE_WINDOWS_AFTER); i++) {
      Window w = ws.get(i);
      timeline.add(new RescaleOutcome.Point(i - r - 1, (w.startNanos() - requestNanos) / 1e9, w.seconds(), w.eventsPerSecond()));
    }
    double[] stalls = splitDeficitsMs(disturbed, rate);
    return new RescaleOutcome(label, atRequest == null ? 0 : atRequest.stateBytes(), atRequest == null ? 0 : atRequest.sstCount(),
        (commitSeenNanos - requestNanos) / 1e6, latencyMs, Arrays.stream(stalls).min().orElse(0),
        Arrays.stream(stalls).max().orElse(0), atRequest == null ? 0 : skewMs(atRequest, rate),
        Arrays.stream(splitDeficitsMs(quiet, rate)).max().orElse(0), secondsToSteady, steadyBefore, before,
        eventsPerSecond(after), timeline);
  }
}
