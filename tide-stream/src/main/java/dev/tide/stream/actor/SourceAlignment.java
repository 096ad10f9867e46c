package dev.tide.stream.actor;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps the source actors of one job on one node within a bounded distance of each other in event
 * time, as Flink's watermark alignment does: each source reports the event time of the next row it
 * would emit ({@link Member#report}), and emits no row later than the least of them, the
 * {@link #floor}, plus its allowed drift. Without it a sparse table's source (auctions, one event in
 * 25) races ahead of a dense one's (bids) by millions of events, and a join between them keeps and
 * looks up the state of everything in between instead of the few rows in flight.
 *
 * <p>A member that has not reported yet counts as the least ({@link Long#MIN_VALUE}); one with
 * nothing left to emit reports {@link Long#MAX_VALUE}. The slowest source is never held (it is not
 * ahead of itself), and a held source still passes barriers, so alignment cannot deadlock a job.
 * Members leave when their actor closes. Only sources on one node see each other: across nodes each
 * node's sources are aligned among themselves.
 *
 * <p>Thread-safety: the job's source actors report and read concurrently; reads take no lock.
 */
public final class SourceAlignment {
  private final CopyOnWriteArrayList<Member> members = new CopyOnWriteArrayList<>();

  /** A new member, counted from now on. */
  public Member join() {
    Member m = new Member();
    members.add(m);
    return m;
  }

  /** The least position reported by the members; {@link Long#MAX_VALUE} with none. */
  public long floor() {
    long min = Long.MAX_VALUE;
    for (Member m : members) {
      min = Math.min(min, m.position);
    }
    return min;
  }

  /** Members now (for tests and diagnostics). */
  public int size() {
    return members.size();
  }

  /** One source actor's place in its job's alignment. */
  public final class Member {
    private volatile long position = Long.MIN_VALUE;

    private Member() {}

    /** The event time (ms) of the next row this source would emit; {@link Long#MAX_VALUE} if it has none left. */
    public void report(long eventTimeMs) {
      position = eventTimeMs;
    }

    /** The least position among the job's sources on this node, this one's included. */
    public long floor() {
      return SourceAlignment.this.floor();
    }

    /** Stops counting this member. Idempotent. */
    public void leave() {
      members.remove(this);
    }
  }
}
