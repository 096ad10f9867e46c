package dev.tide.common.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock moved only by {@link #advance}: for deterministic tests and simulations. */
public final class ManualClock implements Clock {
  private final AtomicLong nowMillis;

  public ManualClock(long startMillis) {
    this.nowMillis = new AtomicLong(startMillis);
  }

  @Override
  public long nowMillis() {
    return nowMillis.get();
  }

  @Override
  public long nanoTime() {
    return nowMillis.get() * 1_000_000L;
  }

  public void advance(Duration d) {
    nowMillis.addAndGet(d.toMillis());
  }

  public void set(long millis) {
    nowMillis.set(millis);
  }
}
