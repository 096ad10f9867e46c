package dev.tide.bench;

import dev.tide.cli.TempDirs;
import dev.tide.bench.flink.FlinkNexmarkRun;
import dev.tide.bench.tide.TideNexmarkRun;
import dev.tide.common.hash.RowFingerprint;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The child process of {@code tide bench compare}: one engine, one query, in a JVM of its own so that
 * CPU time and peak memory belong to that run alone. Runs a short warm-up of the same query first
 * (JIT), then the measured run, and prints one {@link Measurement#line() RESULT line} on stdout.
 *
 * <p>Arguments: {@code engine query events seed eventTimeRate parallelism intervalMs warmupEvents timeoutSeconds}.
 * Engines: {@code tide}; {@code flink} (DataStream jobs, sources generating the columns read, as
 * Tide's do); {@code flink-sql} (the Nexmark benchmark's SQL on Flink's table planner, same sources);
 * {@code flink-full} (the DataStream jobs, sources building every column of every event).
 */
public final class EngineRun {
  /** Events per window of the throughput curve. */
  public static final long CURVE_WINDOW = 1_000_000;
  /** The steady part of a run: between these fractions of its input (past start-up, before the last rows drain). */
  public static final double STEADY_FROM = 0.2;
  public static final double STEADY_TO = 0.9;
  /** How a child's stderr line that says why the run failed begins. */
  static final String FAILED = "ENGINE RUN FAILED: ";
  static final List<String> ENGINES = List.of("tide", "flink", "flink-sql", "flink-full");

  private EngineRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println("usage: EngineRun engine query events seed eventTimeRate parallelism intervalMs warmupEvents timeoutSeconds");
      System.exit(2);
    }
    Logs.quietFlink();
    try {
      measure(args);
    } catch (Throwable t) {
      Throwable root = t;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      System.err.println(FAILED + t + (root == t ? "" : "; root cause: " + root));
      t.printStackTrace();
      System.exit(1); // Flink leaves non-daemon threads behind
    }
  }

  private static void measure(String[] args) throws Exception {
    String engine = args[0];
    String query = args[1];
    long events = Long.parseLong(args[2]);
    long seed = Long.parseLong(args[3]);
    long eventTimeRate = Long.parseLong(args[4]);
    int parallelism = Integer.parseInt(args[5]);
    Duration interval = Duration.ofMillis(Long.parseLong(args[6]));
    long warmupEvents = Long.parseLong(args[7]);
    Duration timeout = Duration.ofSeconds(Long.parseLong(args[8]));
    if (warmupEvents > 0) {
      once(engine, query, warmupEvents, seed, eventTimeRate, parallelism, interval, timeout);
    }
    System.gc();
    Timed t = once(engine, query, events, seed, eventTimeRate, parallelism, interval, timeout);
    Measurement m = new Measurement(engine, query, events, t.wallNanos(), t.cpuNanos(), peakRssBytes(), t.result(),
        t.timeline().eventsPerSecond(events, STEADY_FROM, STEADY_TO), t.timeline().windows(events, CURVE_WINDOW));
    System.out.println(m.line());
    System.out.flush();
    System.exit(0); // Flink leaves non-daemon threads behind
  }

  private static Timed once(String engine, String query, long events, long seed, long eventTimeRate, int parallelism,
      Duration interval, Duration timeout) throws Exception {
    Path dir = Files.createTempDirectory("tide-compare-" + engine + "-");
    try {
      return switch (engine) {
        case "tide" -> TideNexmarkRun.run(dir, query, events, seed, eventTimeRate, parallelism, interval, timeout);
        case "flink" -> FlinkNexmarkRun.run(dir, query, events, seed, eventTimeRate, parallelism, interval, timeout,
            FlinkNexmarkRun.Job.DATASTREAM);
        case "flink-full" -> FlinkNexmarkRun.run(dir, query, events, seed, eventTimeRate, parallelism, interval, timeout,
            FlinkNexmarkRun.Job.DATASTREAM_FULL_ROWS);
        case "flink-sql" -> FlinkNexmarkRun.run(dir, query, events, seed, eventTimeRate, parallelism, interval, timeout,
            FlinkNexmarkRun.Job.SQL);
        default -> throw new IllegalArgumentException("unknown engine '" + engine + "'; expected one of " + ENGINES);
      };
    } finally {
      TempDirs.deleteTree(dir);
    }
  }

  /** CPU time of this process, all threads. */
  public static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** Peak resident set size (VmHWM) of this process, or -1 where /proc is missing. */
  static long peakRssBytes() {
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/self/status"));
      for (String l : lines) {
        if (l.startsWith("VmHWM:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }


  /**
   * What one child run measured.
   *
   * @param wallNanos submission until the engine reported the bounded job done
   * @param cpuNanos process CPU time over the same span (all threads, GC and JIT included)
   * @param peakRssBytes the process's peak resident memory, warm-up included
   * @param steadyEventsPerSecond events/s over the steady part of the run ({@link #STEADY_FROM} to {@link #STEADY_TO} of its input)
   * @param curve events/s in each window of {@link #CURVE_WINDOW} events
   */
  public record Measurement(String engine, String query, long events, long wallNanos, long cpuNanos, long peakRssBytes,
      RowFingerprint result, double steadyEventsPerSecond, double[] curve) {
    static final String PREFIX = "RESULT ";

    /** End to end: all events over the whole span, job start and last commit included. */
    public double eventsPerSecond() {
      return events * 1e9 / wallNanos;
    }

    public double cpuSecondsPerMillionEvents() {
      return cpuNanos / 1e9 / (events / 1e6);
    }

    /** Events per CPU second: what one fully used core gets through. */
    public double eventsPerCoreSecond() {
      return events * 1e9 / cpuNanos;
    }

    /** Cores used on average over the run. */
    public double coresUsed() {
      return (double) cpuNanos / wallNanos;
    }

    String line() {
      String c = Arrays.stream(curve).mapToObj(v -> String.format(Locale.ROOT, "%.0f", v)).collect(Collectors.joining(","));
      return PREFIX + String.join(" ", engine, query, Long.toString(events), Long.toString(wallNanos), Long.toString(cpuNanos),
          Long.toString(peakRssBytes), result.toString(), String.format(Locale.ROOT, "%.0f", steadyEventsPerSecond), c);
    }

    static Measurement parse(String line) {
      String[] p = line.substring(PREFIX.length()).trim().split(" ");
      if (p.length != 9) {
        throw new IllegalArgumentException("malformed result line '" + line + "'");
      }
      double[] curve = Arrays.stream(p[8].split(",")).mapToDouble(Double::parseDouble).toArray();
      return new Measurement(p[0], p[1], Long.parseLong(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4]),
          Long.parseLong(p[5]), RowFingerprint.parse(p[6]), Double.parseDouble(p[7]), curve);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%s %s: %.0f events/s (steady %.0f)", engine, query, eventsPerSecond(), steadyEventsPerSecond);
    }
  }
}
