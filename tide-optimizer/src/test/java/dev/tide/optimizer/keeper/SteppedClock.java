package dev.tide.optimizer.keeper;

import dev.tide.common.time.Clock;
import dev.tide.common.time.ManualClock;

/**
 * A clock whose wall time can be stepped (as NTP or an operator steps it) while its monotonic time
 * follows {@code base}, which the {@link ManualScheduler} moves.
 */
final class SteppedClock implements Clock {
  private final ManualClock base;
  private long wallOffsetMs;

  SteppedClock(ManualClock base) {
    this.base = base;
  }

  /** Steps the wall clock by {@code deltaMs} (negative: back), leaving monotonic time alone. */
  void stepWall(long deltaMs) {
    wallOffsetMs += deltaMs;
  }

  @Override
  public long nowMillis() {
    return base.nowMillis() + wallOffsetMs;
  }

  @Override
  public long nanoTime() {
    return base.nanoTime();
  }
}
