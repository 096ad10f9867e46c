package dev.tide.meta;

import java.util.ArrayDeque;
import java.util.List;

/**
 * A bounded in-memory ring of what changed the cluster's shape or state, for the dashboard's
 * timeline: reschedules, recoveries, pauses and resumes, drains and scaling decisions, each with
 * its reason. The oldest event is dropped when the ring is full; nothing is persisted (a restarted
 * meta starts an empty timeline).
 *
 * <p>Thread-safety: safe for any thread.
 */
public final class EventLog {
  /** One event. {@code seq} increases by one per event recorded, so readers can ask for what is new. */
  public record Entry(long seq, long atMs, String kind, String subject, String reason) {}

  private final int capacity;
  private final ArrayDeque<Entry> ring;
  private long next = 1;

  /** @param capacity most events kept, at least 1 */
  public EventLog(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("event log capacity " + capacity + " must be at least 1");
    }
    this.capacity = capacity;
    this.ring = new ArrayDeque<>(capacity);
  }

  /** Records an event at {@code atMs}: {@code kind} such as "reschedule", {@code subject} the job, worker or group. */
  public synchronized void record(long atMs, String kind, String subject, String reason) {
    if (ring.size() == capacity) {
      ring.removeFirst();
    }
    ring.addLast(new Entry(next++, atMs, kind, subject, reason));
  }

  /** The kept events with a sequence number above {@code afterSeq}, oldest first. */
  public synchronized List<Entry> since(long afterSeq) {
    return ring.stream().filter(e -> e.seq() > afterSeq).toList();
  }
}
