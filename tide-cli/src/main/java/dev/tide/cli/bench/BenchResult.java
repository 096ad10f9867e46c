package dev.tide.cli.bench;

/**
 * One measured run of a query over a bounded stream.
 *
 * @param query the built-in query
 * @param events events of the stream (all tables)
 * @param wallNanos from submission until the sources' last offsets were committed
 * @param cpuNanos CPU time of the whole process over the same interval
 * @param recoveries recoveries of the cluster during the run (0 for a clean run)
 * @param finished false when the run hit the timeout before its sources were done
 */
public record BenchResult(String query, long events, long wallNanos, long cpuNanos, long recoveries, boolean finished) {
  public double seconds() {
    return wallNanos / 1e9;
  }

  public double eventsPerSecond() {
    return wallNanos <= 0 ? 0 : events * 1e9 / wallNanos;
  }

  /** CPU seconds the process spent per million events. */
  public double cpuSecondsPerMillionEvents() {
    return events <= 0 ? 0 : cpuNanos / 1e9 / (events / 1e6);
  }
}
