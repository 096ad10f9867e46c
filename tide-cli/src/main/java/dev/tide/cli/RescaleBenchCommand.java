package dev.tide.cli;

import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.bench.RescaleAnalysis;
import dev.tide.cli.bench.RescaleBench;
import dev.tide.cli.bench.RescaleOutcome;
import dev.tide.cli.bench.RescaleProbe;
import dev.tide.cli.bench.RescaleRun;
import dev.tide.cli.text.Cells;
import dev.tide.cli.text.TextTable;
import dev.tide.common.config.Durations;
import dev.tide.meta.MetaOptions;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench rescale}: online rescaling of a stateful job at a fixed input rate, for several
 * state sizes; prints per state size the throughput around each reschedule and a summary with the
 * time from request to commit, the source stall and the time until throughput is steady again.
 */
@Command(name = "rescale", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Measures online rescaling of a stateful job against state size.",
        "",
        "For each state size, on a fresh in-process cluster: backfills a view of bids",
        "until the committed state has about that size, runs a live bid stream at a",
        "fixed rate counted per auction, waits for steady throughput, then rescales",
        "the job out and back in online. For each reschedule it prints the time from",
        "the request to the commit of its barrier, the source stall around it, and the",
        "throughput per barrier interval until it is steady again, all measured from",
        "outside the engine through the committed state. A run takes a few minutes;",
        "--state-sizes 10MB is a quick one.",
        ""})
public final class RescaleBenchCommand implements Callable<Integer> {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|KIB|MB|MIB|GB|GIB)?");

  @Spec
  CommandSpec spec;

  @Option(names = "--state-sizes", defaultValue = "10MB,100MB,1GB", split = ",", paramLabel = "SIZE",
      converter = SizeConverter.class,
      description = "State sizes to measure, comma-separated, e.g. 10MB,1GB (1 MB = 2^20 bytes; default: ${DEFAULT-VALUE}).")
  List<Long> stateSizes;

  @Option(names = "--rate", paramLabel = "N", defaultValue = "20000",
      description = "Events per second of the live stream (default: ${DEFAULT-VALUE}).")
  long rate;

  @Option(names = "--nodes", paramLabel = "N", defaultValue = "2", description = "Compute nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--slots", paramLabel = "N", defaultValue = "2", description = "Actor slots per compute node (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--splits", paramLabel = "N", defaultValue = "8", description = "Splits of each source (default: ${DEFAULT-VALUE}).")
  int splits;

  @Option(names = "--parallelism", paramLabel = "N", defaultValue = "2",
      description = "Actors per fragment before the scale-out and after the scale-in (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(names = "--scale-out-to", paramLabel = "N", defaultValue = "4",
      description = "Actors per fragment after the scale-out (default: ${DEFAULT-VALUE}).")
  int scaleOutTo;

  @Option(names = "--barrier-interval", paramLabel = "DURATION", defaultValue = "1s", converter = OptionChecks.DurationConverter.class,
      description = "Time between checkpoint barriers; also the resolution of the throughput timeline (default: ${DEFAULT-VALUE}).")
  Duration barrierInterval;

  @Option(names = "--quiet", paramLabel = "DURATION", defaultValue = "10s", converter = OptionChecks.DurationConverter.class,
      description = "Steady running before each reschedule, at least (default: ${DEFAULT-VALUE}).")
  Duration quiet;

  @Option(names = "--settle-timeout", paramLabel = "DURATION", defaultValue = "60s", converter = OptionChecks.DurationConverter.class,
      description = "Most time to wait for steady throughput before and after a reschedule (default: ${DEFAULT-VALUE}).")
  Duration settleTimeout;

  @Option(names = "--load-timeout", paramLabel = "DURATION", defaultValue = "10min", converter = OptionChecks.DurationConverter.class,
      description = "Most time for the backfill of one state size (default: ${DEFAULT-VALUE}).")
  Duration loadTimeout;

  /** Parses {@code 10MB}, {@code 1GB}, {@code 512KB} or a bare number of bytes; units are binary. */
  static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      Matcher m = SIZE.matcher(value.trim().toUpperCase(Locale.ROOT));
      if (!m.matches()) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a size such as 500KB, 10MB or 1GB");
      }
      String unit = m.group(2) == null ? "B" : m.group(2);
      int shift = switch (unit) {
        case "KB", "KIB" -> 10;
        case "MB", "MIB" -> 20;
        case "GB", "GIB" -> 30;
        default -> 0;
      };
      try {
        long n = Long.parseLong(m.group(1));
        if (n > (Long.MAX_VALUE >> shift)) {
          throw new NumberFormatException();
        }
        return n << shift;
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is too large a size");
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    RescaleBench.Settings settings = validate();
    PrintWriter out = spec.commandLine().getOut();
    out.println("Tide rescale benchmark");
    MachineInfo.lines().forEach(out::println);
    out.printf(Locale.ROOT, "Setup    %d compute node(s) x %d slots, barrier interval %s, parallelism %d -> %d -> %d,%n",
        nodes, slots, Durations.format(barrierInterval), parallelism, scaleOutTo, parallelism);
    out.printf(Locale.ROOT, "         live stream %s events/s in %d splits; state sizes %s; fresh cluster per size%n",
        Cells.count(rate), splits, stateSizes.stream().map(RescaleBenchCommand::size).collect(Collectors.joining(", ")));
    out.println("Load     " + loadAverage() + " at start (other processes on the machine disturb the figures)");
    out.println();
    out.flush();

    RescaleBench bench = new RescaleBench(settings, line -> {
      out.println("  .. " + line);
      out.flush();
    });
    List<RescaleRun> runs = new ArrayList<>();
    for (long bytes : stateSizes) {
      out.println("State " + size(bytes));
      out.flush();
      RescaleRun run = bench.run(bytes);
      runs.add(run);
      printRun(out, run);
      out.println();
      out.flush();
    }
    printSummary(out, runs);
    out.println("Load     " + loadAverage() + " at the end");
    out.println();
    printMethod(out);
    out.flush();
    return runs.stream().allMatch(r -> r.recoveries() == 0) ? TideCli.EXIT_OK : TideCli.EXIT_FAILED;
  }

  private void printRun(PrintWriter out, RescaleRun run) {
    RescaleOutcome first = run.outcomes().get(0);
    out.printf(Locale.ROOT, "  backfilled %s events in %s s: %s committed; %s in %s SSTs at the first reschedule%s%n",
        Cells.count(run.backfillEvents()), Cells.decimal(run.backfillSeconds(), 1), size(run.backfilledBytes()),
        size(first.stateBytes()), Cells.count(first.sstCount()),
        run.recoveries() > 0 ? "; " + run.recoveries() + " RECOVERIES (figures not valid)" : "");
    TreeMap<Integer, RescaleOutcome.Point[]> rows = new TreeMap<>();
    List<RescaleOutcome> outcomes = run.outcomes();
    for (int i = 0; i < outcomes.size(); i++) {
      for (RescaleOutcome.Point p : outcomes.get(i).timeline()) {
        rows.computeIfAbsent(p.index(), k -> new RescaleOutcome.Point[outcomes.size()])[i] = p;
      }
    }
    List<String> headers = new ArrayList<>(List.of("window"));
    for (RescaleOutcome o : outcomes) {
      headers.add(o.label() + " from s");
      headers.add("events/s");
    }
    int[] widths = new int[headers.size()];
    boolean[] right = new boolean[headers.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = Math.max(headers.get(c).length(), 9);
      right[c] = true;
    }
    out.println(TextTable.fixed("  ", widths, right, headers));
    for (var e : rows.entrySet()) {
      List<String> cells = new ArrayList<>();
      cells.add(String.valueOf(e.getKey()));
      for (RescaleOutcome.Point p : e.getValue()) {
        cells.add(p == null ? "" : String.format(Locale.ROOT, "%+.2f", p.startSeconds()));
        cells.add(p == null ? "" : Cells.count(Math.round(p.eventsPerSecond())));
      }
      out.println(TextTable.fixed("  ", widths, right, cells));
    }
  }

  private static void printSummary(PrintWriter out, List<RescaleRun> runs) {
    List<String> headers = List.of("state", "at request", "rescale", "request->commit ms", "barrier ms",
        "stall ms all", "stall ms worst", "skew ms", "noise ms", "s to steady", "events/s before", "events/s after", "note");
    List<List<String>> rows = new ArrayList<>();
    for (RescaleRun run : runs) {
      for (RescaleOutcome o : run.outcomes()) {
        List<String> notes = new ArrayList<>();
        if (!o.steadyBefore()) {
          notes.add("not steady before");
        }
        if (run.recoveries() > 0) {
          notes.add(run.recoveries() + " recoveries");
        }
        rows.add(List.of(size(run.targetBytes()), size(o.stateBytes()), o.label(), Cells.decimal(o.requestToCommitMs(), 0),
            o.barrierLatencyMs() < 0 ? "n/a" : Cells.count(o.barrierLatencyMs()), Cells.decimal(o.allSplitsStallMs(), 0),
            Cells.decimal(o.worstSplitStallMs(), 0), Cells.decimal(o.skewMs(), 0), Cells.decimal(o.noiseFloorMs(), 0),
            o.settled() ? Cells.decimal(o.secondsToSteady(), 1) : "not settled",
            Cells.count(Math.round(o.eventsPerSecondBefore())), Cells.count(Math.round(o.eventsPerSecondAfter())),
            String.join("; ", notes)));
      }
    }
    out.println("Summary");
    TextTable.render("  ", headers, rows).forEach(out::println);
    out.println();
  }

  private void printMethod(PrintWriter out) {
    long pollMs = TimeUnit.NANOSECONDS.toMillis(RescaleProbe.POLL_NANOS);
    int band = (int) Math.round(RescaleAnalysis.STEADY_BAND * 100);
    String[] lines = {
        "How it is measured (from outside the engine: meta's committed state and statistics, no hook):",
        "- request->commit: from the reschedule call (which builds the new actors) until meta no longer reports the",
        "  job rescheduling, polled every 1 ms. barrier: injection to commit of the reschedule's barrier (meta's clock).",
        "- events/s: the live stream per window between two barriers (" + Durations.format(barrierInterval)
            + "), from its committed source offsets;",
        "  window 0 opens with the reschedule's barrier; 'from s' is the window's start relative to the request.",
        "- stall: the live source is paced on a fixed schedule, so its committed offsets show how far each split fell",
        "  behind it over any run of windows (output made up later is netted out). 'worst': the longest of one split.",
        "  'all': the shortfall every split had at once, i.e. the longest the whole source could have stood still.",
        "  A reschedule restarts each actor's pacing at its slowest split, so 'worst' includes up to 'skew', the",
        "  spread of the splits' schedules at the request. Resolution about " + pollMs + " ms (a commit is seen within a "
            + pollMs + " ms poll",
        "  and dated by meta's whole-ms barrier latency) plus one event of a split; a gap made up before the next",
        "  barrier (sources catch up after back-pressure) is not seen. 'noise': 'worst' over as many windows before",
        "  the request, where nothing was rescaled.",
        "- s to steady: from the request to the first of " + RescaleAnalysis.STEADY_WINDOWS + " windows in a row within " + band
            + "% of the throughput before it.",
        "- state: sum of the committed SSTs' sizes (L0 and levels; nothing compacts, so overwritten rows count).",
        "  Most of it is the backfilled view of bids, which the live stream (a count per auction) never reads; the",
        "  live stream's own state is small but lives in the same store, among the same SSTs."};
    for (String l : lines) {
      out.println(l);
    }
  }

  /** The system load average over the last minute, or "n/a". */
  private static String loadAverage() {
    double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return load < 0 ? "load average n/a" : "load average " + Cells.decimal(load, 2) + " on " + MachineInfo.cores() + " cores";
  }

  static String size(long bytes) {
    if (bytes >= 1L << 30) {
      return trim(bytes / (double) (1L << 30)) + " GB";
    }
    if (bytes >= 1L << 20) {
      return trim(bytes / (double) (1L << 20)) + " MB";
    }
    if (bytes >= 1L << 10) {
      return trim(bytes / (double) (1L << 10)) + " KB";
    }
    return bytes + " B";
  }

  private static String trim(double v) {
    return v >= 100 || v == Math.rint(v) ? Cells.decimal(v, 0) : Cells.decimal(v, 1);
  }

  private RescaleBench.Settings validate() {
    for (long s : stateSizes) {
      OptionChecks.range(spec, "--state-sizes", s, 1L << 10, 1L << 40);
    }
    OptionChecks.range(spec, "--rate", rate, 1, 100_000_000);
    OptionChecks.range(spec, "--nodes", nodes, 1, 64);
    OptionChecks.range(spec, "--slots", slots, 1, 256);
    OptionChecks.rule(spec, "--splits", NexmarkSourceOptions.SPLITS, splits, String.valueOf(splits));
    int vnodes = MetaOptions.VNODE_COUNT.defaultValue();
    OptionChecks.range(spec, "--parallelism", parallelism, 1, vnodes - 1);
    int cap = Math.min(Math.min(vnodes, nodes * slots), splits);
    if (scaleOutTo <= parallelism || scaleOutTo > cap) {
      throw OptionChecks.invalid(spec, "--scale-out-to", String.valueOf(scaleOutTo), "must be above --parallelism (" + parallelism
          + ") and at most " + cap + " (the slots of the cluster, the splits and the vnode count)");
    }
    OptionChecks.rule(spec, "--barrier-interval", MetaOptions.BARRIER_INTERVAL, barrierInterval, Durations.format(barrierInterval));
    OptionChecks.range(spec, "--quiet", quiet, Duration.ZERO, Duration.ofHours(1));
    OptionChecks.range(spec, "--settle-timeout", settleTimeout, Duration.ofSeconds(1), Duration.ofHours(1));
    OptionChecks.range(spec, "--load-timeout", loadTimeout, Duration.ofSeconds(1), Duration.ofHours(24));
    return new RescaleBench.Settings(rate, nodes, slots, splits, parallelism, scaleOutTo, barrierInterval, quiet, settleTimeout,
        loadTimeout);
  }
}
