package dev.tide.meta.autoscale;

/**
 * What the actors of one fragment did in one epoch, summed over them (reports of every worker).
 *
 * @param epoch the epoch (the barrier's previous epoch)
 * @param atMs when meta received the first report of it
 * @param actors actors that reported
 * @param elapsedNanos wall time, summed over the actors
 * @param busyNanos time in operator work (neither idle nor blocked on output), summed
 * @param blockedNanos time blocked on output (backpressure), summed
 * @param rowsIn rows read (a source: rows produced), summed
 * @param rowsOut rows dispatched, summed
 * @param backlog a source's rows behind what it could read, summed over the actors that know it; -1 if none does
 */
public record LoadSample(long epoch, long atMs, int actors, long elapsedNanos, long busyNanos, long blockedNanos, long rowsIn,
    long rowsOut, long backlog) {

  /** The sample with one more actor's report added. */
  public LoadSample plus(long elapsed, long busy, long blocked, long in, long out, long actorBacklog) {
    long b = actorBacklog < 0 ? backlog : Math.max(0, backlog) + actorBacklog;
    return new LoadSample(epoch, atMs, actors + 1, elapsedNanos + elapsed, busyNanos + busy, blockedNanos + blocked, rowsIn + in,
        rowsOut + out, b);
  }

  /** The epoch's duration: wall time per actor. */
  public double seconds() {
    return actors == 0 ? 0 : elapsedNanos / 1e9 / actors;
  }
}
