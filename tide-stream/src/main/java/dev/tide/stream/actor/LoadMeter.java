package dev.tide.stream.actor;

/**
 * Measures one actor's load between two barriers, on the actor's thread: rows in and out, time
 * idle (waiting for input, for a source's schedule, or for a commit) and time blocked on output
 * (a full channel or no exchange permits: backpressure). Busy time is the rest of the wall time.
 *
 * <p>Outboxes report blocked time through {@link #outputBlocked}, which finds the meter of the
 * calling actor thread; only the slow path (a send that had to wait) pays for that lookup.
 *
 * <p>Not thread-safe: one actor thread owns it, except {@link #rowsInTotal}, which any thread may read.
 */
public final class LoadMeter {
  private static final ThreadLocal<LoadMeter> CURRENT = new ThreadLocal<>();

  private long since;
  private long rowsIn;
  private long rowsOut;
  private long idleNanos;
  private long blockedNanos;
  /** Rows in (a source actor: rows produced) since the actor started; written by the actor thread only, read by any. */
  private volatile long rowsInTotal;

  /** Makes this the meter of the calling (actor) thread and starts its first interval. */
  void bind(long nowNanos) {
    CURRENT.set(this);
    since = nowNanos;
  }

  /** Called by an outbox on the sending thread after it waited {@code nanos} for room downstream. */
  public static void outputBlocked(long nanos) {
    LoadMeter m = CURRENT.get();
    if (m != null) {
      m.blockedNanos += nanos;
    }
  }

  void rowsIn(long n) {
    rowsIn += n;
    rowsInTotal += n; // one writer: no lost update
  }

  /** Rows in since the actor started, as of its last chunk. */
  long rowsInTotal() {
    return rowsInTotal;
  }

  void rowsOut(long n) {
    rowsOut += n;
  }

  void idle(long nanos) {
    idleNanos += nanos;
  }

  /** The load since the previous call (or {@link #bind}), and starts the next interval. */
  ActorLoad take(long actorId, long nowNanos, long backlog, long skipped) {
    ActorLoad load = new ActorLoad(actorId, Math.max(0, nowNanos - since), rowsIn, rowsOut, idleNanos, blockedNanos, backlog, skipped);
    since = nowNanos;
    rowsIn = 0;
    rowsOut = 0;
    idleNanos = 0;
    blockedNanos = 0;
    return load;
  }
}
