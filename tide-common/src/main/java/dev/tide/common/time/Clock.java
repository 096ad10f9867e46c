package dev.tide.common.time;

/** The source of time for control logic. Drivers read it once per step and pass {@code now} down. */
public interface Clock {
  /** Milliseconds since the Unix epoch. */
  long nowMillis();

  /** A monotonic reading in nanoseconds, for measuring intervals. */
  long nanoTime();

  Clock SYSTEM = new Clock() {
    @Override
    public long nowMillis() {
      return System.currentTimeMillis();
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }
  };
}
