package dev.tide.cli;

import dev.tide.cli.bench.HotRescaleBench;
import dev.tide.cli.bench.HotRescaleBench.Effect;
import dev.tide.cli.bench.HotRescaleBench.Rescale;
import dev.tide.cli.bench.HotRescaleBench.Sample;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.text.Cells;
import dev.tide.cli.text.TextTable;
import dev.tide.common.config.Durations;
import dev.tide.meta.MetaOptions;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tide bench rescale-hot}: online rescaling of a saturated job whose every row reads its state. */
@Command(name = "rescale-hot", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Measures online rescaling under saturation, with state read on every row.",
        "",
        "On a fresh in-process cluster: an unthrottled bid stream counted per _row_id %% --keys",
        "(every row reads and writes its key's state; the hot set is the whole state), rescaled",
        "--parallelism -> --scale-to -> --parallelism while it runs flat out. Samples every 10 ms",
        "the rows produced by the source and the rows arriving at the aggregation (which writes the",
        "view: the sink side), and prints per reschedule the rows/s before and after, the longest",
        "gap at either end, the time to reach 90%% of the lower of the rates before and after, and rows/s per second",
        "around it; writes timeline.csv and timeline.png into --out.",
        ""})
public final class RescaleHotBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--keys", paramLabel = "N", defaultValue = "2000000", description = "Distinct keys of the state (default: ${DEFAULT-VALUE}).")
  long keys;

  @Option(names = "--nodes", paramLabel = "N", defaultValue = "1", description = "Compute nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--slots", paramLabel = "N", defaultValue = "4", description = "Actor slots per compute node (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--splits", paramLabel = "N", defaultValue = "8", description = "Splits of the source (default: ${DEFAULT-VALUE}).")
  int splits;

  @Option(names = "--parallelism", paramLabel = "N", defaultValue = "1",
      description = "Actors per fragment before and after (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(names = "--scale-to", paramLabel = "N", defaultValue = "2", description = "Actors per fragment in between (default: ${DEFAULT-VALUE}).")
  int scaleTo;

  @Option(names = "--barrier-interval", paramLabel = "DURATION", defaultValue = "1s", converter = OptionChecks.DurationConverter.class,
      description = "Time between checkpoint barriers (default: ${DEFAULT-VALUE}).")
  Duration barrierInterval;

  @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "30s", converter = OptionChecks.DurationConverter.class,
      description = "Running before the first reschedule (default: ${DEFAULT-VALUE}).")
  Duration warmup;

  @Option(names = "--phase", paramLabel = "DURATION", defaultValue = "20s", converter = OptionChecks.DurationConverter.class,
      description = "Running after each reschedule (default: ${DEFAULT-VALUE}).")
  Duration phase;

  @Option(names = "--out", defaultValue = "bench-results/rescale-hot", description = "Directory for CSV and PNG (default: ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    HotRescaleBench.Settings settings = validate();
    PrintWriter w = spec.commandLine().getOut();
    w.println("Tide online rescale under saturation (state read on every row)");
    MachineInfo.lines().forEach(w::println);
    w.printf(Locale.ROOT, "Setup    %d compute node(s) x %d slots, barrier interval %s, %,d keys, source %d splits unthrottled,%n",
        nodes, slots, Durations.format(barrierInterval), keys, splits);
    w.printf(Locale.ROOT, "         parallelism %d -> %d -> %d, warm-up %s, %s after each reschedule%n", parallelism, scaleTo, parallelism,
        Durations.format(warmup), Durations.format(phase));
    w.println("Load     " + Cells.decimal(java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2)
        + " (1 min) at start; other processes on the machine disturb the figures");
    w.flush();
    HotRescaleBench.Run run = new HotRescaleBench(settings, line -> {
      w.println("  .. " + line);
      w.flush();
    }).run();
    List<List<String>> rows = new ArrayList<>();
    for (Rescale r : run.rescales()) {
      for (boolean sink : new boolean[] {false, true}) {
        Effect e = HotRescaleBench.effect(run.samples(), r, phase, sink);
        rows.add(List.of(r.label(), sink ? "sink side" : "source", Cells.count(r.stateBytes() >> 20) + " MB",
            Cells.decimal((r.committedNanos() - r.requestNanos()) / 1e6, 0), Cells.decimal(e.gapMillis(), 0),
            Cells.decimal(e.steadyGapMillis(), 0), Double.isNaN(e.secondsTo90()) ? "never" : Cells.decimal(e.secondsTo90(), 2),
            Cells.count(Math.round(e.before())), Cells.count(Math.round(e.after()))));
      }
    }
    w.println();
    TextTable.render("", List.of("rescale", "at", "state", "request->commit ms", "gap ms", "gap ms before", "s to 90%", "rows/s before", "rows/s after"), rows)
        .forEach(w::println);
    w.println();
    for (Rescale r : run.rescales()) {
      for (boolean sink : new boolean[] {false, true}) {
        Effect e = HotRescaleBench.effect(run.samples(), r, phase, sink);
        w.printf(Locale.ROOT, "%s %-9s rows/s per second from -5 s to +15 s: %s%n", r.label(), sink ? "sink side" : "source",
            String.join(" ", perSecond(e.perSecond())));
      }
    }
    w.println();
    w.println("recoveries: " + run.recoveries());
    w.println("How it is measured: the compute nodes' live counters of rows produced by the source actors and of rows");
    w.println("read by the aggregation's actors, sampled every 10 ms from outside the actors; 'gap': the longest time");
    w.println("either stood still from 1 s before the request to 10 s after the reschedule committed; 'before'/'after': the "
        + HotRescaleBench.STEADY_SECONDS + " s before the request and the " + HotRescaleBench.STEADY_SECONDS + " s ending "
        + Durations.format(phase) + " after the commit; 's to 90%': from the request");
    w.println("to the first of 4 windows of 250 ms in a row at 90% of the lower of 'before' and 'after'; state: committed SST bytes at the request;");
    w.println("'gap ms before': the longest stop in the " + HotRescaleBench.STEADY_SECONDS + " s ending 1 s before the request (the job's own barriers).");
    Files.createDirectories(out);
    writeCsv(run, out.resolve("timeline.csv"));
    writePng(run, out.resolve("timeline.png"));
    w.println("Wrote " + out.resolve("timeline.csv") + " and timeline.png");
    w.flush();
    return 0;
  }

  private static List<String> perSecond(double[] v) {
    List<String> out = new ArrayList<>();
    for (double x : v) {
      out.add(Double.isNaN(x) ? "-" : Cells.count(Math.round(x / 1000)) + "k");
    }
    return out;
  }

  /** 100 ms windows: seconds since submission, source rows/s, sink-side rows/s; reschedules as comment lines. */
  private static void writeCsv(HotRescaleBench.Run run, Path csv) throws java.io.IOException {
    StringBuilder b = new StringBuilder("seconds,source_rows_per_s,sink_rows_per_s\n");
    for (double[] p : windows(run.samples())) {
      b.append(String.format(Locale.ROOT, "%.1f,%.0f,%.0f%n", p[0], p[1], p[2]));
    }
    for (Rescale r : run.rescales()) {
      b.append(String.format(Locale.ROOT, "# %.3f request %s, %.3f committed%n", r.requestNanos() / 1e9, r.label(), r.committedNanos() / 1e9));
    }
    Files.writeString(csv, b);
  }

  private static List<double[]> windows(List<Sample> samples) {
    List<double[]> out = new ArrayList<>();
    long step = 100_000_000L;
    long end = samples.get(samples.size() - 1).nanos();
    for (long t = 0; t + step <= end; t += step) {
      out.add(new double[] {(t + step) / 1e9, HotRescaleBench.rate(samples, t, t + step, false),
          HotRescaleBench.rate(samples, t, t + step, true)});
    }
    return out;
  }

  private static void writePng(HotRescaleBench.Run run, Path png) throws java.io.IOException {
    System.setProperty("java.awt.headless", "true");
    List<double[]> w = windows(run.samples());
    XYChart chart = new XYChartBuilder().width(1100).height(500).title("Online rescale under saturation, rows/s per 100 ms")
        .xAxisTitle("seconds").yAxisTitle("rows/s").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    chart.getStyler().setMarkerSize(0);
    double[] x = w.stream().mapToDouble(p -> p[0]).toArray();
    for (int c = 1; c <= 2; c++) {
      int col = c;
      XYSeries s = chart.addSeries(c == 1 ? "source" : "sink side (aggregation)", x, w.stream().mapToDouble(p -> p[col]).toArray());
      s.setMarker(SeriesMarkers.NONE);
    }
    double top = w.stream().mapToDouble(p -> Math.max(p[1], p[2])).max().orElse(1);
    XYSeries r = chart.addSeries("reschedule requests", run.rescales().stream().mapToDouble(q -> q.requestNanos() / 1e9).toArray(),
        run.rescales().stream().mapToDouble(q -> top).toArray());
    r.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    r.setMarker(SeriesMarkers.TRIANGLE_DOWN);
    String file = png.toString();
    BitmapEncoder.saveBitmap(chart, file.substring(0, file.length() - 4), BitmapEncoder.BitmapFormat.PNG);
  }

  private HotRescaleBench.Settings validate() {
    OptionChecks.range(spec, "--keys", keys, 1, 1_000_000_000L);
    OptionChecks.range(spec, "--nodes", nodes, 1, 64);
    OptionChecks.range(spec, "--slots", slots, 1, 256);
    OptionChecks.rule(spec, "--splits", NexmarkSourceOptions.SPLITS, splits, String.valueOf(splits));
    int vnodes = MetaOptions.VNODE_COUNT.defaultValue();
    OptionChecks.range(spec, "--parallelism", parallelism, 1, vnodes - 1);
    // Two fragments (source, aggregation) of that many actors each must fit the cluster's slots.
    int cap = Math.min(Math.min(vnodes, nodes * slots / 2), splits);
    if (scaleTo == parallelism || scaleTo > cap) {
      throw OptionChecks.invalid(spec, "--scale-to", String.valueOf(scaleTo), "must differ from --parallelism (" + parallelism
          + ") and be at most " + cap + " (half the slots of the cluster, as the job has two fragments; the splits; the vnode count)");
    }
    OptionChecks.rule(spec, "--barrier-interval", MetaOptions.BARRIER_INTERVAL, barrierInterval, Durations.format(barrierInterval));
    OptionChecks.range(spec, "--warmup", warmup, Duration.ofSeconds(6), Duration.ofHours(1));
    OptionChecks.range(spec, "--phase", phase, Duration.ofSeconds(6), Duration.ofHours(1));
    return new HotRescaleBench.Settings(keys, nodes, slots, splits, parallelism, scaleTo, barrierInterval, warmup, phase);
  }
}
