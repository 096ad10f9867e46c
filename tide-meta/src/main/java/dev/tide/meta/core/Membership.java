package dev.tide.meta.core;

import dev.tide.meta.schedule.Worker;
import dev.tide.meta.store.WorkerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * The compute nodes meta knows and where each stands.
 *
 * <p>States and transitions (each persisted, where durable, by the core before it acts on it):
 *
 * <pre>
 *   (register) → ACTIVE
 *   ACTIVE   → DRAINING  an operator (or the pool) drains it; stored draining
 *   DRAINING → LEFT      it hosts no actor and no reschedule is in flight; its heartbeats are answered LEAVE
 *   ACTIVE, DRAINING → LOST  no heartbeat for heartbeat.timeout, or a call to it failed; recovery re-places its actors
 *   LOST     → (forgotten)   when a recovery finished moving everything off it; a heartbeat then says REGISTER_AGAIN
 *   LEFT     → (forgotten)   heartbeat.timeout after its last heartbeat (it has gone); deleted from the store
 * </pre>
 *
 * A stored draining worker that hosts nothing is LEFT after a meta restart, so a drained node is told
 * to leave even by a meta that restarted in between; of stored workers with one address, all but the
 * newest are LOST (one process serves an address, and it registered again). {@link #generation} counts changes of the
 * schedulable set; jobs are reconciled to their intents once per generation, after the settle delay.
 *
 * <p>Thread-safety: confined to the core.
 */
final class Membership {
  enum State { ACTIVE, DRAINING, LEFT, LOST }

  static final class Member {
    final Worker worker;
    /** The compute pool's resource the node was launched for, {@code ""} when started by hand. */
    final String resourceId;
    State state;
    long lastHeartbeatMs;
    int actors;
    long minReaderVersion;

    Member(Worker worker, String resourceId, State state, long nowMs) {
      this.worker = worker;
      this.resourceId = resourceId;
      this.state = state;
      this.lastHeartbeatMs = nowMs;
    }

    int id() {
      return worker.id();
    }

    boolean alive() {
      return state == State.ACTIVE || state == State.DRAINING;
    }
  }

  private final TreeMap<Integer, Member> members = new TreeMap<>();
  private long generation;
  private long changedAtMs;

  /** Members loaded from the store; {@code hosting} are the workers some stored layout uses. */
  Membership(Iterable<WorkerRecord> stored, Set<Integer> hosting, long nowMs) {
    java.util.Map<String, Integer> newestAt = new java.util.HashMap<>();
    for (WorkerRecord r : stored) {
      newestAt.merge(r.worker().address(), r.id(), Math::max);
    }
    for (WorkerRecord r : stored) {
      State s = !r.draining() ? State.ACTIVE : hosting.contains(r.id()) ? State.DRAINING : State.LEFT;
      if (newestAt.get(r.worker().address()) != r.id()) {
        s = State.LOST; // a node registered at its address later: one process serves an address
      }
      members.put(r.id(), new Member(r.worker(), r.resourceId(), s, nowMs)); // every stored worker gets a full timeout to reconnect
    }
    changedAtMs = nowMs;
  }

  Member get(int id) {
    return members.get(id);
  }

  Iterable<Member> all() {
    return members.values();
  }

  void add(Worker w, String resourceId, long nowMs) {
    members.put(w.id(), new Member(w, resourceId, State.ACTIVE, nowMs));
    changed(nowMs);
  }

  void remove(int id) {
    members.remove(id);
  }

  /** A change of the schedulable set at {@code atMs}: jobs are reconciled once it has settled. */
  void changed(long atMs) {
    generation++;
    changedAtMs = atMs;
  }

  long generation() {
    return generation;
  }

  long changedAtMs() {
    return changedAtMs;
  }

  /** Alive and not draining: where new actors may go. Ascending ids. */
  List<Worker> schedulable() {
    List<Worker> out = new ArrayList<>();
    members.values().stream().filter(m -> m.state == State.ACTIVE).forEach(m -> out.add(m.worker));
    return out;
  }

  /** Active or draining: the workers barriers go to. Ascending ids. */
  List<Member> alive() {
    return members.values().stream().filter(Member::alive).toList();
  }

  List<Worker> aliveWorkers() {
    return alive().stream().map(m -> m.worker).toList();
  }

  List<Member> inState(State s) {
    return members.values().stream().filter(m -> m.state == s).toList();
  }

  /** The verdict for a heartbeat received at {@code atMs}; a live member's health is updated. */
  Command.Verdict heartbeat(Command.Heartbeat h) {
    Member m = members.get(h.workerId());
    if (m == null || m.state == State.LOST) {
      return Command.Verdict.REGISTER_AGAIN;
    }
    m.lastHeartbeatMs = Math.max(m.lastHeartbeatMs, h.atMs());
    if (m.state == State.LEFT) {
      return Command.Verdict.LEAVE;
    }
    m.actors = h.actors();
    m.minReaderVersion = h.minReaderVersion();
    return Command.Verdict.OK;
  }

  /** Alive members silent for longer than {@code timeoutMs}. */
  List<Member> silent(long nowMs, long timeoutMs) {
    return alive().stream().filter(m -> nowMs - m.lastHeartbeatMs > timeoutMs).toList();
  }

  /** The earliest time at which a member could turn silent or a LEFT one be forgotten. */
  long nextExpiryMs(long timeoutMs) {
    long next = Long.MAX_VALUE;
    for (Member m : members.values()) {
      if (m.alive() || m.state == State.LEFT) {
        next = Math.min(next, m.lastHeartbeatMs + timeoutMs + 1);
      }
    }
    return next;
  }
}
