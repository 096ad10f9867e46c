package dev.tide.meta.core;

import java.util.HashSet;
import java.util.Set;

/**
 * Whether meta recovers, why, and how far the current attempt got.
 *
 * <p>Stages of an attempt: {@code IDLE} (requested, not started) → {@code RESETTING} (every alive
 * worker is reset to the committed version) → {@code BUILDING} (every job's layout is rebuilt) →
 * done. With no alive worker an attempt is {@code WAITING}. A failed call of the attempt, or a worker
 * lost meanwhile, sends it back to {@code IDLE}: a new attempt starts from scratch, and the calls of
 * the old one are forgotten.
 *
 * <p>Thread-safety: confined to the core.
 */
final class Recovery {
  enum Stage { IDLE, WAITING, RESETTING, BUILDING }

  private String reason;
  private Stage stage = Stage.IDLE;
  private final Set<Long> pending = new HashSet<>();
  private boolean waitLogged;

  /** Requests a recovery; a second request while one is requested only keeps the first reason. */
  void request(String why) {
    if (reason == null) {
      org.slf4j.LoggerFactory.getLogger(MetaCore.class).warn("recovery requested: {}", why);
      reason = why;
      stage = Stage.IDLE;
    }
  }

  boolean requested() {
    return reason != null;
  }

  String reason() {
    return reason;
  }

  Stage stage() {
    return stage;
  }

  boolean waiting() {
    return stage == Stage.WAITING;
  }

  /** Whether a poll now would make progress. */
  boolean ready() {
    return stage == Stage.IDLE || (stage != Stage.WAITING && pending.isEmpty());
  }

  void waitForWorkers() {
    if (!waitLogged) {
      org.slf4j.LoggerFactory.getLogger(MetaCore.class).warn("recovery waits: no compute node is alive");
      waitLogged = true;
    }
    stage = Stage.WAITING;
  }

  void resetting(Set<Long> tokens) {
    waitLogged = false;
    stage = Stage.RESETTING;
    pending.clear();
    pending.addAll(tokens);
  }

  void building(Set<Long> tokens) {
    stage = Stage.BUILDING;
    pending.clear();
    pending.addAll(tokens);
  }

  boolean callsDone() {
    return pending.isEmpty();
  }

  /** The outcome of a call: a failed call of the running attempt restarts it. */
  void done(long token, boolean ok) {
    if (pending.remove(token) && !ok) {
      restart();
    }
  }

  void restart() {
    stage = Stage.IDLE;
    pending.clear();
  }

  void restartIfRunning() {
    if (reason != null && (stage == Stage.RESETTING || stage == Stage.BUILDING)) {
      restart();
    }
  }

  void finish() {
    reason = null;
    stage = Stage.IDLE;
    pending.clear();
  }
}
