package dev.tide.bench;

import dev.tide.bench.report.Plots;
import dev.tide.bench.report.Report;
import dev.tide.bench.rescale.FlinkRescale;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.bench.RescaleBench;
import dev.tide.cli.bench.RescaleOutcome;
import dev.tide.cli.bench.RescaleRun;
import dev.tide.cli.text.Cells;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench rescale-compare}: the rescale benchmark's job at several state sizes, rescaled
 * 2 → 4 by Tide online (a reschedule in one barrier, {@link RescaleBench}) and by Flink with
 * stop-with-savepoint and a restore at the new parallelism ({@link FlinkRescale}).
 */
@Command(name = "rescale-compare", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 100,
    description = {
        "Rescale downtime of Tide (online) and Apache Flink (stop-with-savepoint, restore) side by side.",
        "",
        "For each state size: the same job on each engine (a backfilled view of bids holding the state,",
        "and a live bid stream at --rate counted per auction), run steadily, then rescaled from",
        "--parallelism to --scale-out-to. Prints the processing gap (longest time the live stream made no",
        "progress) and the time from the request until throughput is steady again. Writes rescale.csv,",
        "rescale.md, rescale-gap.png and rescale-steady.png into --out.",
        ""})
public final class RescaleCompareCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--state-sizes", split = ",", defaultValue = "10MB,100MB", paramLabel = "SIZE",
      description = "State sizes, e.g. 10MB,100MB,1GB (binary units; default: ${DEFAULT-VALUE}).")
  List<String> stateSizes;

  @Option(names = "--rate", defaultValue = "20000", description = "Events per second of the live stream (default: ${DEFAULT-VALUE}).")
  long rate;

  @Option(names = "--parallelism", defaultValue = "2", description = "Parallelism before the rescale (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(names = "--scale-out-to", defaultValue = "4", description = "Parallelism after it (default: ${DEFAULT-VALUE}).")
  int scaleOutTo;

  @Option(names = "--quiet-seconds", defaultValue = "10", description = "Steady running before the rescale, at least (default: ${DEFAULT-VALUE}).")
  long quietSeconds;

  @Option(names = "--settle-timeout-seconds", defaultValue = "60",
      description = "Most time to wait for steady throughput before and after (default: ${DEFAULT-VALUE}).")
  long settleSeconds;

  @Option(names = "--out", defaultValue = "bench-results/rescale", description = "Directory for CSV, Markdown and PNG (default: ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    List<Long> sizes = new ArrayList<>();
    for (String s : stateSizes) {
      sizes.add(parseSize(s));
    }
    if (parallelism < 1 || scaleOutTo <= parallelism || scaleOutTo > 64) {
      throw new ParameterException(spec.commandLine(), "--parallelism " + parallelism + " and --scale-out-to " + scaleOutTo
          + " are invalid: need 1 <= parallelism < scale-out-to <= 64");
    }
    if (rate < 100) {
      throw new ParameterException(spec.commandLine(), "--rate " + rate + " is invalid: must be at least 100 events/s");
    }
    Files.createDirectories(out);
    PrintWriter w = spec.commandLine().getOut();
    Duration window = Duration.ofSeconds(1);
    Duration quiet = Duration.ofSeconds(quietSeconds);
    Duration settle = Duration.ofSeconds(settleSeconds);
    Duration load = Duration.ofMinutes(15);
    w.println("Rescale " + parallelism + " -> " + scaleOutTo + ": Tide online vs Apache Flink 2.3.0 stop-with-savepoint + restore");
    MachineInfo.lines().forEach(w::println);
    w.printf(Locale.ROOT, "Setup    live stream %,d events/s, checkpoint/barrier interval %s, heap state backend for Flink%n", rate, "1s");
    w.flush();
    RescaleBench tide = new RescaleBench(new RescaleBench.Settings(rate, 2, scaleOutTo / 2 + scaleOutTo % 2, 8, parallelism, scaleOutTo,
        window, quiet, settle, load), l -> progress(w, "tide", l));
    FlinkRescale flink = new FlinkRescale(new FlinkRescale.Settings(rate, parallelism, scaleOutTo, window, window, quiet, settle, load),
        l -> progress(w, "flink", l));
    List<List<String>> rows = new ArrayList<>();
    List<List<String>> csv = new ArrayList<>();
    boolean clean = true;
    for (long bytes : sizes) {
      String label = size(bytes);
      w.println("State " + label + "   (load " + Load.now() + ")");
      w.flush();
      RescaleRun t = tide.run(bytes);
      RescaleOutcome o = t.outcomes().get(0);
      clean &= t.recoveries() == 0;
      String tideLoad = Load.now();
      FlinkRescale.Outcome f = flink.run(bytes);
      String flinkLoad = Load.now();
      rows.add(List.of(label, "Tide", size(o.stateBytes()), Cells.decimal(o.allSplitsStallMs(), 0), Cells.decimal(o.requestToCommitMs(), 0),
          steadyCell(o.secondsToSteady()), Cells.count(Math.round(o.eventsPerSecondBefore())), Cells.count(Math.round(o.eventsPerSecondAfter()))));
      String flinkRescale = Double.isNaN(f.restartMs()) ? "no output within " + settleSeconds + " s"
          : Cells.decimal(f.stopMs() + f.restartMs(), 0);
      rows.add(List.of(label, "Flink", size(f.savepointBytes()), (Double.isNaN(f.restartMs()) ? "≥ " : "") + Cells.decimal(f.gapMs(), 0), flinkRescale,
          steadyCell(f.secondsToSteady()), Cells.count(Math.round(f.eventsPerSecondBefore() * 50 / 46)),
          Cells.count(Math.round(f.eventsPerSecondAfter() * 50 / 46))));
      csv.add(List.of(Long.toString(bytes), "tide", Long.toString(o.stateBytes()), f1(o.allSplitsStallMs()), f1(o.requestToCommitMs()),
          f1(o.secondsToSteady()), f1(o.eventsPerSecondBefore()), f1(o.eventsPerSecondAfter()), Long.toString(t.backfillEvents()), tideLoad));
      csv.add(List.of(Long.toString(bytes), "flink", Long.toString(f.savepointBytes()), f1(f.gapMs()), f1(f.stopMs() + f.restartMs()),
          f1(f.secondsToSteady()), f1(f.eventsPerSecondBefore() * 50 / 46), f1(f.eventsPerSecondAfter() * 50 / 46),
          Long.toString(f.backfillEvents()), flinkLoad));
      w.printf(Locale.ROOT, "  Tide  gap %,.0f ms, request->commit %,.0f ms, steady after %s s%n", o.allSplitsStallMs(), o.requestToCommitMs(),
          steadyCell(o.secondsToSteady()));
      String restore = Double.isNaN(f.restartMs()) ? "no output within " + settleSeconds + " s (the gap is a lower bound)"
          : String.format(Locale.ROOT, "%,.0f ms", f.restartMs());
      w.printf(Locale.ROOT, "  Flink gap %,.0f ms, stop-with-savepoint %,.0f ms (savepoint %s), restore to first output %s, steady after %s s%n",
          f.gapMs(), f.stopMs(), size(f.savepointBytes()), restore, steadyCell(f.secondsToSteady()));
      w.printf(Locale.ROOT, "        the restored Flink job read %,d backfill bids again (0: its finished source stayed finished)%n",
          f.backfillReplayed());
      w.flush();
    }
    Report report = new Report(List.of("state", "engine", "state at rescale", "gap ms", "rescale ms", "s to steady",
        "events/s before", "events/s after"), rows);
    w.println();
    report.print(w);
    report.writeMarkdown(out.resolve("rescale.md"));
    new Report(List.of("target_state_bytes", "engine", "state_bytes", "gap_ms", "rescale_ms", "seconds_to_steady",
        "events_per_s_before", "events_per_s_after", "backfill_events", "load_avg_1_5_15"), csv).writeCsv(out.resolve("rescale.csv"));
    Plots.rescale(out, "Rescale " + parallelism + " -> " + scaleOutTo);
    w.println("Wrote " + out.resolve("rescale.csv") + ", rescale.md, rescale-gap.png, rescale-steady.png");
    w.flush();
    return clean ? 0 : 1;
  }

  private static void progress(PrintWriter w, String engine, String line) {
    w.println("  .. " + engine + ": " + line);
    w.flush();
  }

  private static String steadyCell(double s) {
    return Double.isNaN(s) ? "not steady" : Cells.decimal(s, 1);
  }

  private static String f1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String size(long bytes) {
    if (bytes >= 1L << 30) {
      return Cells.decimal(bytes / (double) (1L << 30), 1) + " GB";
    }
    return Cells.decimal(bytes / (double) (1L << 20), 1) + " MB";
  }

  private long parseSize(String s) {
    var m = java.util.regex.Pattern.compile("(\\d+)\\s*(KB|MB|GB)?").matcher(s.trim().toUpperCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ParameterException(spec.commandLine(), "--state-sizes: '" + s + "' is not a size such as 10MB or 1GB");
    }
    int shift = m.group(2) == null ? 0 : switch (m.group(2)) {
      case "KB" -> 10;
      case "MB" -> 20;
      default -> 30;
    };
    long n = Long.parseLong(m.group(1)) << shift;
    if (n < (1L << 20) || n > (8L << 30)) {
      throw new ParameterException(spec.commandLine(), "--state-sizes: " + s + " is invalid: must be between 1MB and 8GB");
    }
    return n;
  }
}
