package dev.tide.cli;

import dev.tide.cli.bench.BenchResult;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.bench.NexmarkBench;
import dev.tide.cli.text.Cells;
import dev.tide.cli.text.TextTable;
import dev.tide.common.config.Durations;
import dev.tide.meta.MetaOptions;
import dev.tide.sql.NexmarkJobs;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench nexmark}: each query on a fresh in-process cluster over a bounded, unthrottled
 * Nexmark stream; prints throughput and CPU cost per query.
 */
@Command(name = "nexmark", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Measures Nexmark queries on fresh in-process clusters.",
        "",
        "Runs each query on a fresh in-process cluster over a bounded Nexmark stream at full speed and",
        "prints wall time from submission until the sources' last offsets are committed, events/s,",
        "events/s per core and process CPU seconds per million events.",
        ""})
final class NexmarkBenchCommand implements Callable<Integer> {
  private static final List<String> HEADERS =
      List.of("query", "events", "seconds", "events/s", "events/s/core", "CPU s/M events", "note");
  private static final int[] WIDTHS = {5, 13, 8, 11, 13, 14, 0};
  private static final boolean[] RIGHT = {false, true, true, true, true, true, false};

  @Spec
  CommandSpec spec;

  @Option(names = "--query", required = true, split = ",", paramLabel = "qN",
      description = "Queries to run, comma-separated: q0 .. q22 (not q13).")
  List<String> queries;

  @Option(names = "--events", defaultValue = "1000000",
      description = "Events of the stream, all tables (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(names = "--nodes", defaultValue = "1", description = "Compute nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--slots", description = "Slots per compute node (default: the number of cores).")
  Integer slots;

  @Option(names = "--splits", description = "Source splits (default: nodes x slots).")
  Integer splits;

  @Option(names = "--barrier-interval", defaultValue = "250ms", converter = OptionChecks.DurationConverter.class,
      description = "Time between checkpoint barriers (default: ${DEFAULT-VALUE}).")
  Duration barrierInterval;

  @Option(names = "--timeout", defaultValue = "10min", converter = OptionChecks.DurationConverter.class,
      description = "Give up on a query after this long (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    NexmarkBench.Settings settings = validate();
    PrintWriter out = spec.commandLine().getOut();
    int cores = MachineInfo.cores();
    out.println("Tide Nexmark benchmark");
    MachineInfo.lines().forEach(out::println);
    out.printf(Locale.ROOT, "Setup    %d compute node(s) x %d slots (parallelism %d), %d splits, barrier interval %s,%n",
        settings.nodes(), settings.slotsPerNode(), settings.parallelism(), settings.splits(),
        Durations.format(settings.barrierInterval()));
    out.println("         unthrottled source, fresh cluster per query, one run each (the first query also warms up the JIT)");
    out.println();
    out.println(TextTable.fixed("", WIDTHS, RIGHT, HEADERS));
    out.flush();
    NexmarkBench bench = new NexmarkBench(settings);
    boolean allFinished = true;
    for (String q : queries) {
      BenchResult r = bench.run(q);
      allFinished &= r.finished();
      out.println(row(r, cores));
      out.flush();
    }
    return allFinished ? TideCli.EXIT_OK : TideCli.EXIT_FAILED;
  }

  private static String row(BenchResult r, int cores) {
    List<String> cells = new ArrayList<>();
    cells.add(r.query());
    cells.add(Cells.count(r.events()));
    cells.add(Cells.decimal(r.seconds(), 2));
    cells.add(Cells.count(Math.round(r.eventsPerSecond())));
    cells.add(Cells.count(Math.round(r.eventsPerSecond() / cores)));
    cells.add(r.cpuNanos() < 0 ? "n/a" : Cells.decimal(r.cpuSecondsPerMillionEvents(), 2));
    String note = !r.finished() ? "timed out (sources not done)" : r.recoveries() > 0 ? r.recoveries() + " recoveries" : "";
    cells.add(note);
    return TextTable.fixed("", WIDTHS, RIGHT, cells);
  }

  private NexmarkBench.Settings validate() {
    for (String q : queries) {
      if (!NexmarkJobs.names().contains(q)) {
        throw OptionChecks.invalid(spec, "--query", q, "is not a built-in query; choose from " + NexmarkJobs.names());
      }
    }
    OptionChecks.range(spec, "--events", events, 1, 1_000_000_000_000L);
    OptionChecks.range(spec, "--nodes", nodes, 1, 64);
    int s = slots == null ? MachineInfo.cores() : slots;
    OptionChecks.range(spec, "--slots", s, 1, 256);
    int p = splits == null ? Math.min(4096, nodes * s) : splits;
    OptionChecks.rule(spec, "--splits", NexmarkSourceOptions.SPLITS, p, String.valueOf(p));
    OptionChecks.rule(spec, "--barrier-interval", MetaOptions.BARRIER_INTERVAL, barrierInterval, Durations.format(barrierInterval));
    OptionChecks.range(spec, "--timeout", timeout, Duration.ofSeconds(1), Duration.ofHours(24));
    return new NexmarkBench.Settings(events, nodes, s, p, barrierInterval, timeout);
  }
}
