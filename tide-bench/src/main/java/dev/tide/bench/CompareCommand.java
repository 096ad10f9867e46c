package dev.tide.bench;

import dev.tide.bench.EngineRun.Measurement;
import dev.tide.bench.report.Plots;
import dev.tide.bench.report.Report;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.text.Cells;
import dev.tide.stream.queries.NexmarkQueries;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench compare}: each Nexmark query on Tide and on Flink, engines alternating
 * (Tide, Flink, Tide, Flink, ...), each run in a fresh JVM ({@link EngineRun}). A query's figures are
 * reported only if every run of both engines produced the same result fingerprint.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 100,
    description = {
        "Nexmark throughput of Tide and Apache Flink side by side.",
        "",
        "Each run is one engine and one query in a fresh JVM on this machine: a warm-up run, then the",
        "measured run over the same events (same generator, seed and count for both engines, the",
        "same parallelism and checkpoint interval). Both end in a sink that keeps no rows and only",
        "fingerprints them (Tide's digest sink, Flink's FingerprintSink), like the Nexmark blackhole",
        "sink; 'tide bench nexmark' measures Tide's materialized views instead. Engines alternate",
        "per query for --rounds rounds.",
        "Prints per query the median events/s of each engine, the ratio Tide/Flink, CPU seconds per",
        "million events and peak resident memory; writes runs.csv, summary.csv, summary.md and",
        "throughput.png into --out. A query whose engines disagree on the result gets no figures.",
        ""})
public final class CompareCommand implements Callable<Integer> {
  static final List<String> ENGINES = List.of("tide", "flink");

  @Spec
  CommandSpec spec;

  @Option(names = "--queries", split = ",", defaultValue = "q0,q1,q2,q3,q4,q5,q7,q8", paramLabel = "qN",
      description = "Queries, comma-separated (default: ${DEFAULT-VALUE}).")
  List<String> queries;

  @Option(names = "--events", defaultValue = "500000", description = "Events per run, all tables (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(names = "--parallelism", defaultValue = "2", description = "Parallelism of both engines (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(names = "--rounds", defaultValue = "2", description = "Runs per engine and query, alternating (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--warmup-events", defaultValue = "100000",
      description = "Events of the warm-up run in each JVM before the measured one; 0 for none (default: ${DEFAULT-VALUE}).")
  long warmupEvents;

  @Option(names = "--checkpoint-interval-ms", defaultValue = "1000",
      description = "Tide's barrier interval and Flink's checkpoint interval, ms (default: ${DEFAULT-VALUE}).")
  long intervalMs;

  @Option(names = "--seed", defaultValue = "42", description = "Seed of the generator (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--event-time-rate", defaultValue = "10000",
      description = "Events per second of event time; sets how many windows the stream spans (default: ${DEFAULT-VALUE}).")
  long eventTimeRate;

  @Option(names = "--jvm-opts", defaultValue = "-Xmx2g -XX:+UseParallelGC",
      description = "Options of each run's JVM, the same for both engines (default: ${DEFAULT-VALUE}).")
  String jvmOpts;

  @Option(names = "--jfr", description = "Record each measured JVM with Java Flight Recorder into --out/jfr/.")
  boolean jfr;

  @Option(names = "--timeout-seconds", defaultValue = "600", description = "Give up on a run after this long (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(names = "--out", defaultValue = "bench-results/compare", description = "Directory for CSV, Markdown and PNG (default: ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter w = spec.commandLine().getOut();
    Files.createDirectories(out);
    w.println("Nexmark: Tide vs Apache Flink 2.3.0 (DataStream API, heap state backend, exactly-once checkpoints)");
    MachineInfo.lines().forEach(w::println);
    w.printf(Locale.ROOT, "Runs     %,d events, parallelism %d, checkpoint interval %d ms, %d round(s), warm-up %,d events, JVM %s%n",
        events, parallelism, intervalMs, rounds, warmupEvents, jvmOpts);
    w.println("Load     " + Load.now());
    w.flush();
    List<List<String>> runRows = new ArrayList<>();
    Map<String, Map<String, List<Measurement>>> byQuery = new LinkedHashMap<>();
    for (String q : queries) {
      Map<String, List<Measurement>> perEngine = new LinkedHashMap<>();
      ENGINES.forEach(e -> perEngine.put(e, new ArrayList<>()));
      for (int r = 0; r < rounds; r++) {
        for (String engine : ENGINES) {
          String load = Load.now();
          Measurement m = runChild(engine, q, r);
          perEngine.get(engine).add(m);
          w.printf(Locale.ROOT, "  %-3s round %d %-5s %,12.0f events/s  %6.2f CPU s/M  peak RSS %,6d MB  rows %,d   (load %s)%n",
              q, r + 1, engine, m.eventsPerSecond(), m.cpuSecondsPerMillionEvents(), m.peakRssBytes() >> 20, m.result().rows(), load);
          w.flush();
          runRows.add(List.of(q, engine, Integer.toString(r + 1), Long.toString(events), Integer.toString(parallelism),
              String.format(Locale.ROOT, "%.3f", m.wallNanos() / 1e9), String.format(Locale.ROOT, "%.0f", m.eventsPerSecond()),
              String.format(Locale.ROOT, "%.3f", m.cpuSecondsPerMillionEvents()), Long.toString(m.peakRssBytes() >> 20),
              m.result().toString(), load));
        }
      }
      byQuery.put(q, perEngine);
    }
    new Report(List.of("query", "engine", "round", "events", "parallelism", "seconds", "events_per_s", "cpu_s_per_m_events",
        "peak_rss_mb", "result_fingerprint", "load_avg_1_5_15"), runRows).writeCsv(out.resolve("runs.csv"));

    List<List<String>> summary = new ArrayList<>();
    List<List<String>> csv = new ArrayList<>();
    boolean allAgree = true;
    for (var e : byQuery.entrySet()) {
      List<Measurement> tide = e.getValue().get("tide");
      List<Measurement> flink = e.getValue().get("flink");
      boolean agree = tide.stream().map(Measurement::result).distinct().count() == 1
          && flink.stream().map(Measurement::result).allMatch(f -> f.equals(tide.get(0).result()));
      allAgree &= agree;
      if (!agree) {
        summary.add(List.of(e.getKey(), "results differ", "", "", "", "", "", "", "no"));
        csv.add(List.of(e.getKey(), "", "", "", "", "", "", "", "false"));
        continue;
      }
      double t = median(tide, Measurement::eventsPerSecond);
      double f = median(flink, Measurement::eventsPerSecond);
      double tc = median(tide, Measurement::cpuSecondsPerMillionEvents);
      double fc = median(flink, Measurement::cpuSecondsPerMillionEvents);
      long tm = tide.stream().mapToLong(Measurement::peakRssBytes).max().orElse(-1) >> 20;
      long fm = flink.stream().mapToLong(Measurement::peakRssBytes).max().orElse(-1) >> 20;
      summary.add(List.of(e.getKey(), Cells.count(Math.round(t)), Cells.count(Math.round(f)), Cells.decimal(t / f, 2),
          Cells.decimal(tc, 2), Cells.decimal(fc, 2), Cells.count(tm), Cells.count(fm), "yes (" + Cells.count(tide.get(0).result().rows()) + " rows)"));
      csv.add(List.of(e.getKey(), fmt(t), fmt(f), String.format(Locale.ROOT, "%.3f", t / f), String.format(Locale.ROOT, "%.3f", tc),
          String.format(Locale.ROOT, "%.3f", fc), Long.toString(tm), Long.toString(fm), "true"));
    }
    Report report = new Report(List.of("query", "Tide events/s", "Flink events/s", "Tide/Flink", "Tide CPU s/M ev",
        "Flink CPU s/M ev", "Tide peak RSS MB", "Flink peak RSS MB", "results equal"), summary);
    w.println();
    w.printf(Locale.ROOT, "Medians of %d round(s); CPU is process CPU time (all threads) per million events.%n", rounds);
    report.print(w);
    report.writeMarkdown(out.resolve("summary.md"));
    new Report(List.of("query", "tide_events_per_s", "flink_events_per_s", "ratio_tide_flink", "tide_cpu_s_per_m_events",
        "flink_cpu_s_per_m_events", "tide_peak_rss_mb", "flink_peak_rss_mb", "results_equal"), csv).writeCsv(out.resolve("summary.csv"));
    Plots.throughput(out, String.format(Locale.ROOT, "Nexmark throughput, %,d events, parallelism %d", events, parallelism));
    w.println("Wrote " + out.resolve("runs.csv") + ", summary.csv, summary.md, throughput.png");
    w.flush();
    return allAgree ? 0 : 1;
  }

  private Measurement runChild(String engine, String query, int round) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Arrays.asList(jvmOpts.trim().split("\\s+")));
    if (jfr) {
      Path dir = Files.createDirectories(out.resolve("jfr"));
      cmd.add("-XX:StartFlightRecording=filename=" + dir.resolve(query + "-" + engine + "-" + (round + 1) + ".jfr") + ",settings=profile");
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), EngineRun.class.getName(), engine, query,
        Long.toString(events), Long.toString(seed), Long.toString(eventTimeRate), Integer.toString(parallelism),
        Long.toString(intervalMs), Long.toString(warmupEvents), Long.toString(timeoutSeconds)));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    Measurement m = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith(Measurement.PREFIX)) {
          m = Measurement.parse(line);
        }
      }
    }
    if (!p.waitFor(timeoutSeconds + 120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    if (m == null) {
      throw new IllegalStateException(engine + " run of " + query + " (round " + (round + 1) + ") ended with exit code "
          + p.exitValue() + " and no result; see its output above");
    }
    return m;
  }

  private static double median(List<Measurement> ms, java.util.function.ToDoubleFunction<Measurement> f) {
    double[] v = ms.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.0f", v);
  }

  private void validate() {
    for (String q : queries) {
      if (!NexmarkQueries.names().contains(q)) {
        throw new ParameterException(spec.commandLine(), "--queries: '" + q + "' is not a built-in query; choose from " + NexmarkQueries.names());
      }
    }
    check(events >= 1000 && events <= 1_000_000_000L, "--events", events, "between 1000 and 1000000000");
    check(parallelism >= 1 && parallelism <= 64, "--parallelism", parallelism, "between 1 and 64");
    check(rounds >= 1 && rounds <= 20, "--rounds", rounds, "between 1 and 20");
    check(warmupEvents >= 0, "--warmup-events", warmupEvents, "0 or more");
    check(intervalMs >= 10 && intervalMs <= 600_000, "--checkpoint-interval-ms", intervalMs, "between 10 and 600000");
    check(eventTimeRate >= 1, "--event-time-rate", eventTimeRate, "at least 1");
    check(timeoutSeconds >= 1, "--timeout-seconds", timeoutSeconds, "at least 1");
  }

  private void check(boolean ok, String option, Object value, String rule) {
    if (!ok) {
      throw new ParameterException(spec.commandLine(), option + " " + value + " is invalid: must be " + rule);
    }
  }
}
