package dev.tide.meta.scale;

/** Actors to add ({@code delta > 0}) to, or remove ({@code delta < 0}) from, one worker in one fragment. */
public record WorkerDelta(int workerId, int delta) {
  public WorkerDelta {
    if (delta == 0) {
      throw new RescheduleException("delta of worker " + workerId + " is 0: expected +N or -N with N >= 1");
    }
  }

  /** {@code "<worker>:+n"} or {@code "<worker>:-n"}. */
  public String render() {
    return workerId + ":" + (delta > 0 ? "+" : "") + delta;
  }
}
