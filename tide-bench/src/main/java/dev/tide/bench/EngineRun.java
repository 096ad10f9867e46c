package dev.tide.bench;

import dev.tide.bench.flink.FlinkNexmarkRun;
import dev.tide.bench.tide.TideNexmarkRun;
import dev.tide.bench.tide.TideNexmarkRun.Timed;
import dev.tide.common.hash.RowFingerprint;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The child process of {@code tide bench compare}: one engine, one query, in a JVM of its own so that
 * CPU time and peak memory belong to that run alone. Runs a short warm-up of the same query first
 * (JIT), then the measured run, and prints one {@link Measurement#line() RESULT line} on stdout.
 *
 * <p>Arguments: {@code engine query events seed eventTimeRate parallelism intervalMs warmupEvents timeoutSeconds}.
 */
public final class EngineRun {
  private EngineRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println("usage: EngineRun engine query events seed eventTimeRate parallelism intervalMs warmupEvents timeoutSeconds");
      System.exit(2);
    }
    Logs.quietFlink();
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
    long cpu0 = processCpuNanos();
    Timed t = once(engine, query, events, seed, eventTimeRate, parallelism, interval, timeout);
    long cpu = processCpuNanos() - cpu0;
    Measurement m = new Measurement(engine, query, events, t.wallNanos(), cpu, peakRssBytes(), t.result());
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
        case "flink" -> FlinkNexmarkRun.run(dir, query, events, seed, eventTimeRate, parallelism, interval, timeout);
        default -> throw new IllegalArgumentException("unknown engine '" + engine + "'; expected tide or flink");
      };
    } finally {
      deleteTree(dir);
    }
  }

  /** CPU time of this process, all threads. */
  static long processCpuNanos() {
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

  static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: a leftover temporary directory is harmless.
    }
  }

  /**
   * What one child run measured.
   *
   * @param wallNanos submission until the engine reported the bounded job done
   * @param cpuNanos process CPU time over the measured run (all threads, GC and JIT included)
   * @param peakRssBytes the process's peak resident memory, warm-up included
   */
  public record Measurement(String engine, String query, long events, long wallNanos, long cpuNanos, long peakRssBytes,
      RowFingerprint result) {
    static final String PREFIX = "RESULT ";

    public double eventsPerSecond() {
      return events * 1e9 / wallNanos;
    }

    public double cpuSecondsPerMillionEvents() {
      return cpuNanos / 1e9 / (events / 1e6);
    }

    String line() {
      return PREFIX + String.join(" ", engine, query, Long.toString(events), Long.toString(wallNanos), Long.toString(cpuNanos),
          Long.toString(peakRssBytes), result.toString());
    }

    static Measurement parse(String line) {
      String[] p = line.substring(PREFIX.length()).trim().split(" ");
      if (p.length != 7) {
        throw new IllegalArgumentException("malformed result line '" + line + "'");
      }
      return new Measurement(p[0], p[1], Long.parseLong(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4]),
          Long.parseLong(p[5]), RowFingerprint.parse(p[6]));
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%s %s: %.0f events/s", engine, query, eventsPerSecond());
    }
  }
}
