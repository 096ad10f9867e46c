package dev.tide.bench;

import dev.tide.bench.rescale.FlinkHotRescale;
import dev.tide.bench.report.Report;
import dev.tide.cli.bench.HotRescaleBench;
import dev.tide.cli.bench.HotRescaleBench.Effect;
import dev.tide.cli.bench.HotRescaleBench.Rescale;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.text.Cells;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench rescale-hot-compare}: the saturated rescale of {@code tide bench rescale-hot} on
 * Tide (online), on Flink by stop-with-savepoint and restore, and on Flink's adaptive scheduler
 * (in-place rescale through its REST API), with the same job, settings and measurement.
 */
@Command(name = "rescale-hot-compare", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 100,
    description = {
        "Online rescale under saturation, Tide and Apache Flink side by side.",
        "",
        "The same job on each engine: unthrottled bids counted and maxed per _row_id %% --keys (every row",
        "reads and writes its key's state), rescaled --parallelism -> --scale-to -> --parallelism while",
        "it runs flat out: Tide online; Flink by stop-with-savepoint and restore (flink-savepoint) and by",
        "its adaptive scheduler's in-place rescale (flink-adaptive). Sampled every 10 ms at the source and",
        "where rows reach the keyed state (the sink side). Prints per engine and rescale the rows/s",
        "before and after, the longest gap and the time to reach 90%% of the lower of the rates before and after; writes",
        "rescale-hot.csv and rescale-hot.md into --out.",
        ""})
public final class RescaleHotCompareCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--keys", defaultValue = "2000000", description = "Distinct keys of the state (default: ${DEFAULT-VALUE}).")
  long keys;

  @Option(names = "--parallelism", defaultValue = "1", description = "Parallelism before and after (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(names = "--scale-to", defaultValue = "2", description = "Parallelism in between (default: ${DEFAULT-VALUE}).")
  int scaleTo;

  @Option(names = "--warmup-seconds", defaultValue = "30", description = "Running before the first rescale (default: ${DEFAULT-VALUE}).")
  long warmupSeconds;

  @Option(names = "--phase-seconds", defaultValue = "20", description = "Running after each rescale (default: ${DEFAULT-VALUE}).")
  long phaseSeconds;

  @Option(names = "--engines", split = ",", defaultValue = "tide,flink-savepoint,flink-adaptive",
      description = "Engines, comma-separated (default: ${DEFAULT-VALUE}).")
  List<String> engines;

  @Option(names = "--out", defaultValue = "bench-results/rescale-hot", description = "Directory for CSV and Markdown (default: ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (keys < 1 || parallelism < 1 || scaleTo < 1 || scaleTo == parallelism || Math.max(parallelism, scaleTo) > 8) {
      throw new ParameterException(spec.commandLine(), "--keys, --parallelism, --scale-to: need keys >= 1 and parallelisms from 1 to 8"
          + " that differ (got " + keys + ", " + parallelism + ", " + scaleTo + ")");
    }
    if (warmupSeconds < 6 || phaseSeconds < 6) {
      throw new ParameterException(spec.commandLine(), "--warmup-seconds and --phase-seconds must be at least 6 (got "
          + warmupSeconds + ", " + phaseSeconds + ")");
    }
    for (String e : engines) {
      if (!List.of("tide", "flink-savepoint", "flink-adaptive").contains(e)) {
        throw new ParameterException(spec.commandLine(), "--engines: unknown engine '" + e + "'; choose from tide, flink-savepoint, flink-adaptive");
      }
    }
    PrintWriter w = spec.commandLine().getOut();
    w.println("Online rescale under saturation: Tide vs Apache Flink 2.3.0 (heap state backend, checkpoints every 1 s)");
    MachineInfo.lines().forEach(w::println);
    w.printf(Locale.ROOT, "Job      %,d keys, parallelism %d -> %d -> %d, warm-up %d s, %d s after each rescale, source 8 splits unthrottled%n",
        keys, parallelism, scaleTo, parallelism, warmupSeconds, phaseSeconds);
    w.println("Load     " + Load.now());
    w.flush();
    Duration phase = Duration.ofSeconds(phaseSeconds);
    // Tide: one node with a slot per actor of both fragments at the larger parallelism (as Flink's slots).
    HotRescaleBench.Settings settings = new HotRescaleBench.Settings(keys, 1, 2 * Math.max(parallelism, scaleTo), 8, parallelism, scaleTo,
        Duration.ofSeconds(1), Duration.ofSeconds(warmupSeconds), phase);
    Map<String, HotRescaleBench.Run> runs = new LinkedHashMap<>();
    for (String e : engines) {
      java.util.function.Consumer<String> log = l -> {
        w.println("  .. " + l);
        w.flush();
      };
      runs.put(e, switch (e) {
        case "tide" -> new HotRescaleBench(settings, log).run();
        case "flink-savepoint" -> new FlinkHotRescale(settings, FlinkHotRescale.Mode.SAVEPOINT, log).run();
        default -> new FlinkHotRescale(settings, FlinkHotRescale.Mode.ADAPTIVE, log).run();
      });
    }
    List<List<String>> table = new ArrayList<>();
    List<List<String>> csv = new ArrayList<>();
    for (var run : runs.entrySet()) {
      for (Rescale r : run.getValue().rescales()) {
        for (boolean sink : new boolean[] {false, true}) {
          Effect x = HotRescaleBench.effect(run.getValue().samples(), r, phase, sink);
          String at = sink ? "sink side" : "source";
          table.add(List.of(run.getKey(), r.label(), at, r.stateBytes() < 0 ? "" : Cells.count(r.stateBytes() >> 20) + " MB",
              Cells.decimal((r.committedNanos() - r.requestNanos()) / 1e6, 0), Cells.decimal(x.gapMillis(), 0),
              Cells.decimal(x.steadyGapMillis(), 0), Double.isNaN(x.secondsTo90()) ? "never" : Cells.decimal(x.secondsTo90(), 2), Cells.count(Math.round(x.before())),
              Cells.count(Math.round(x.after()))));
          csv.add(List.of(run.getKey(), r.label(), at, Long.toString(r.stateBytes()),
              String.format(Locale.ROOT, "%.1f", (r.committedNanos() - r.requestNanos()) / 1e6), String.format(Locale.ROOT, "%.1f", x.gapMillis()),
              String.format(Locale.ROOT, "%.1f", x.steadyGapMillis()), String.format(Locale.ROOT, "%.2f", x.secondsTo90()), String.format(Locale.ROOT, "%.0f", x.before()),
              String.format(Locale.ROOT, "%.0f", x.after())));
        }
      }
    }
    Report report = new Report(List.of("engine", "rescale", "at", "state", "request->running ms", "gap ms", "gap ms before", "s to 90%", "rows/s before",
        "rows/s after"), table);
    w.println();
    report.print(w);
    Files.createDirectories(out);
    report.writeMarkdown(out.resolve("rescale-hot.md"));
    new Report(List.of("engine", "rescale", "at", "state_bytes", "request_to_running_ms", "gap_ms", "gap_ms_before", "seconds_to_90pct", "rows_per_s_before",
        "rows_per_s_after"), csv).writeCsv(out.resolve("rescale-hot.csv"));
    w.println();
    w.println("state: Tide's committed SST bytes, Flink's savepoint size (none for the adaptive scheduler); request->running: Tide");
    w.println("until the reschedule committed, Flink until the job ran at the new parallelism with rows flowing again;");
    w.println("gap ms before: the longest stop in the " + HotRescaleBench.STEADY_SECONDS + " s ending 1 s before the request (barriers, GC).");
    w.println("Wrote " + out.resolve("rescale-hot.csv") + " and rescale-hot.md");
    w.flush();
    return 0;
  }
}
