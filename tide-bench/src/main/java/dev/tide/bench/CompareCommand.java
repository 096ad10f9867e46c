package dev.tide.bench;

import dev.tide.bench.EngineRun.Measurement;
import dev.tide.bench.flink.FlinkNexmarkRun;
import dev.tide.bench.report.Plots;
import dev.tide.bench.report.Report;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.text.Cells;
import dev.tide.sql.NexmarkJobs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench compare}: each Nexmark query on Tide and on Flink, engines alternating
 * (Tide, Flink, Tide, Flink, ...), each run in a fresh JVM ({@link EngineRun}). A query's figures are
 * reported only if every run of every engine produced the same result fingerprint.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 100,
    description = {
        "Nexmark throughput of Tide and Apache Flink side by side, at steady state.",
        "",
        "Each run is one engine and one query in a fresh JVM on this machine: a warm-up run, then the",
        "measured run over the same events (same generator, seed and count for both engines, the",
        "same parallelism and checkpoint interval). Flink runs each query twice: as a DataStream job",
        "(flink) and as the Nexmark benchmark's SQL on its table planner (flink-sql). All sources",
        "generate only the columns the query reads (engine flink-full: Flink's DataStream sources",
        "build every column of every event, the boxed path).",
        "Both end in a sink that keeps no rows and only fingerprints them, like the Nexmark blackhole",
        "sink. Engines alternate per query for --rounds rounds.",
        "Prints per query and engine the steady events/s (the sources' pace between 20%% and 90%% of",
        "the input), the end-to-end events/s (submission to the last commit), the ratio of Tide to",
        "each engine, CPU seconds per million events, events per CPU second (one core's worth), cores",
        "used and peak resident memory; writes runs.csv, summary.csv, summary.md, curve.csv (events/s",
        "per 1,000,000-event window), throughput.png and curve-QUERY.png into --out. A query whose",
        "engines disagree on the result gets no figures; a run that fails (an exception, out of",
        "memory, no result in time) is reported with its reason and the comparison goes on. An engine",
        "without a job for a query (Flink has none for q6, whose OVER window it refuses) is reported",
        "as not available for that query, and the other engines run it.",
        "--short runs the old short comparison (500,000 events, 2 rounds, 100,000-event warm-up),",
        "which measures start-up as much as the engine.",
        ""})
public final class CompareCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--queries", split = ",", defaultValue = "q0,q1,q2,q3,q4,q5,q6,q7,q8,q9,q10,q11,q12,q14,q15,q16,q17,q18,q19,q20,q21,q22", paramLabel = "qN",
      description = "Queries, comma-separated (default: ${DEFAULT-VALUE}).")
  List<String> queries;

  @Option(names = "--engines", split = ",", defaultValue = "tide,flink,flink-sql", paramLabel = "ENGINE",
      description = "Engines, comma-separated, tide first: tide, flink (DataStream), flink-sql (Nexmark SQL on the table planner), "
          + "flink-full (DataStream, full-row sources) (default: ${DEFAULT-VALUE}).")
  List<String> engines;

  @Option(names = "--events", description = "Events per run, all tables (default: 10000000; 500000 with --short).")
  Long events;

  @Option(names = "--parallelism", defaultValue = "2", description = "Parallelism of both engines (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(names = "--rounds", description = "Runs per engine and query, alternating (default: 1; 2 with --short).")
  Integer rounds;

  @Option(names = "--warmup-events",
      description = "Events of the warm-up run in each JVM before the measured one; 0 for none (default: 1000000; 100000 with --short).")
  Long warmupEvents;

  @Option(names = "--short", description = "The short comparison: 500,000 events, 2 rounds, 100,000-event warm-up (explicit options win).")
  boolean shortRun;

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
    if (events == null) {
      events = shortRun ? 500_000L : 10_000_000L;
    }
    if (rounds == null) {
      rounds = shortRun ? 2 : 1;
    }
    if (warmupEvents == null) {
      warmupEvents = shortRun ? 100_000L : 1_000_000L;
    }
    validate();
    PrintWriter w = spec.commandLine().getOut();
    Files.createDirectories(out);
    w.println("Nexmark: Tide vs Apache Flink 2.3.0 (DataStream jobs and Nexmark SQL, heap state backend, exactly-once checkpoints)");
    MachineInfo.lines().forEach(w::println);
    w.printf(Locale.ROOT, "Runs     %,d events, parallelism %d, checkpoint interval %d ms, %d round(s), warm-up %,d events, JVM %s%n",
        events, parallelism, intervalMs, rounds, warmupEvents, jvmOpts);
    w.println("Engines  " + String.join(", ", engines) + "; steady = events/s between " + pct(EngineRun.STEADY_FROM) + " and "
        + pct(EngineRun.STEADY_TO) + " of the input, end to end = submission to the last commit");
    w.println("Load     " + Load.now());
    w.flush();
    List<List<String>> runRows = new ArrayList<>();
    List<List<String>> curveRows = new ArrayList<>();
    Map<String, Map<String, List<Measurement>>> byQuery = new LinkedHashMap<>();
    Map<String, Map<String, String>> failures = new LinkedHashMap<>(); // query -> engine -> why its first failed run failed
    Map<String, Map<String, String>> unavailable = new LinkedHashMap<>(); // query -> engine -> why it has no job for the query
    for (String q : queries) {
      Map<String, List<Measurement>> perEngine = new LinkedHashMap<>();
      engines.forEach(e -> perEngine.put(e, new ArrayList<>()));
      for (String engine : engines) {
        unavailable(engine, q).ifPresent(why -> {
          unavailable.computeIfAbsent(q, k -> new LinkedHashMap<>()).put(engine, why);
          w.printf(Locale.ROOT, "  %-3s         %-10s NOT AVAILABLE: %s%n", q, engine, why);
          w.flush();
          runRows.add(List.of(q, engine, "", Long.toString(events), Integer.toString(parallelism),
              "", "", "", "", "", "", "not available: " + why, ""));
        });
      }
      for (int r = 0; r < rounds; r++) {
        for (String engine : engines) {
          if (unavailable.getOrDefault(q, Map.of()).containsKey(engine)) {
            continue;
          }
          String load = Load.now();
          Outcome o = runChild(engine, q, r);
          if (o.failure() != null) {
            failures.computeIfAbsent(q, k -> new LinkedHashMap<>()).putIfAbsent(engine, o.failure());
            w.printf(Locale.ROOT, "  %-3s round %d %-10s FAILED: %s   (load %s)%n", q, r + 1, engine, o.failure(), load);
            w.flush();
            runRows.add(List.of(q, engine, Integer.toString(r + 1), Long.toString(events), Integer.toString(parallelism),
                "", "", "", "", "", "", "failed: " + o.failure(), load));
            continue;
          }
          Measurement m = o.measurement();
          perEngine.get(engine).add(m);
          w.printf(Locale.ROOT, "  %-3s round %d %-10s steady %,12.0f events/s  end to end %,12.0f  %6.2f CPU s/M  %4.2f cores"
                  + "  peak RSS %,6d MB  rows %,d   (load %s)%n",
              q, r + 1, engine, m.steadyEventsPerSecond(), m.eventsPerSecond(), m.cpuSecondsPerMillionEvents(), m.coresUsed(),
              m.peakRssBytes() >> 20, m.result().rows(), load);
          w.flush();
          runRows.add(List.of(q, engine, Integer.toString(r + 1), Long.toString(events), Integer.toString(parallelism),
              String.format(Locale.ROOT, "%.3f", m.wallNanos() / 1e9), fmt(m.steadyEventsPerSecond()), fmt(m.eventsPerSecond()),
              String.format(Locale.ROOT, "%.3f", m.cpuSecondsPerMillionEvents()), String.format(Locale.ROOT, "%.2f", m.coresUsed()),
              Long.toString(m.peakRssBytes() >> 20), m.result().toString(), load));
          double[] curve = m.curve();
          for (int k = 0; k < curve.length; k++) {
            curveRows.add(List.of(q, engine, Integer.toString(r + 1), Integer.toString(k), Long.toString(k * EngineRun.CURVE_WINDOW),
                fmt(curve[k])));
          }
        }
      }
      byQuery.put(q, perEngine);
    }
    new Report(List.of("query", "engine", "round", "events", "parallelism", "seconds", "steady_events_per_s", "events_per_s",
        "cpu_s_per_m_events", "cores_used", "peak_rss_mb", "result_fingerprint", "load_avg_1_5_15"), runRows)
        .writeCsv(out.resolve("runs.csv"));
    new Report(List.of("query", "engine", "round", "window", "events_from", "events_per_s"), curveRows).writeCsv(out.resolve("curve.csv"));

    List<List<String>> summary = new ArrayList<>();
    List<List<String>> csv = new ArrayList<>();
    boolean allAgree = true;
    for (var e : byQuery.entrySet()) {
      String q = e.getKey();
      Map<String, String> failed = failures.getOrDefault(q, Map.of());
      Map<String, String> absent = unavailable.getOrDefault(q, Map.of());
      // A failed run has no result: the engines that ran agree or not among themselves, and an engine
      // that failed in any round gets no figure (a median of the rounds that happened to pass would flatter it).
      // An engine without a job for the query did not run: it is reported as such and fails nothing.
      Map<String, List<Measurement>> ran = new LinkedHashMap<>(e.getValue());
      ran.keySet().removeAll(failed.keySet());
      ran.keySet().removeAll(absent.keySet());
      List<Measurement> all = ran.values().stream().flatMap(List::stream).toList();
      boolean agree = all.stream().map(Measurement::result).distinct().count() <= 1;
      allAgree &= agree && failed.isEmpty();
      if (!agree) {
        summary.add(List.of(q, "all", "results differ", "", "", "", "", "", "", "", "no"));
        csv.add(List.of(q, "all", "", "", "", "", "", "", "", "", "false"));
        continue;
      }
      List<Measurement> tide = ran.get("tide");
      double ts = tide == null ? Double.NaN : median(tide, Measurement::steadyEventsPerSecond);
      double te = tide == null ? Double.NaN : median(tide, Measurement::eventsPerSecond);
      for (var byEngine : e.getValue().entrySet()) {
        if (absent.containsKey(byEngine.getKey())) {
          summary.add(List.of(q, byEngine.getKey(), "not available: " + brief(absent.get(byEngine.getKey())), "", "", "", "", "", "", "",
              ""));
          csv.add(List.of(q, byEngine.getKey(), "", "", "", "", "", "", "", "", "not available"));
          continue;
        }
        if (failed.containsKey(byEngine.getKey())) {
          summary.add(List.of(q, byEngine.getKey(), "failed: " + brief(failed.get(byEngine.getKey())), "", "", "", "", "", "", "", ""));
          csv.add(List.of(q, byEngine.getKey(), "", "", "", "", "", "", "", "", "failed"));
          continue;
        }
        List<Measurement> ms = byEngine.getValue();
        double steady = median(ms, Measurement::steadyEventsPerSecond);
        double e2e = median(ms, Measurement::eventsPerSecond);
        double cpu = median(ms, Measurement::cpuSecondsPerMillionEvents);
        double perCore = median(ms, Measurement::eventsPerCoreSecond);
        double cores = median(ms, Measurement::coresUsed);
        long rss = ms.stream().mapToLong(Measurement::peakRssBytes).max().orElse(-1) >> 20;
        boolean noRatio = byEngine.getKey().equals("tide") || tide == null;
        String equal = ran.size() > 1 ? "yes (" + Cells.count(ms.get(0).result().rows()) + " rows)"
            : "alone (" + Cells.count(ms.get(0).result().rows()) + " rows)";
        summary.add(List.of(q, byEngine.getKey(), Cells.count(Math.round(steady)), Cells.count(Math.round(e2e)),
            noRatio ? "" : Cells.decimal(ts / steady, 2), noRatio ? "" : Cells.decimal(te / e2e, 2), Cells.decimal(cpu, 2),
            Cells.count(Math.round(perCore)), Cells.decimal(cores, 2), Cells.count(rss), equal));
        csv.add(List.of(q, byEngine.getKey(), fmt(steady), fmt(e2e), String.format(Locale.ROOT, "%.3f", ts / steady),
            String.format(Locale.ROOT, "%.3f", te / e2e), String.format(Locale.ROOT, "%.3f", cpu), fmt(perCore),
            String.format(Locale.ROOT, "%.2f", cores), Long.toString(rss), ran.size() > 1 ? "true" : "alone"));
      }
    }
    Report report = new Report(List.of("query", "engine", "steady events/s", "end-to-end events/s", "Tide/engine steady",
        "Tide/engine end to end", "CPU s/M ev", "events/CPU-s", "cores used", "peak RSS MB", "results equal"), summary);
    w.println();
    w.printf(Locale.ROOT, "Medians of %d round(s); CPU is process CPU time (all threads) per million events, from submission to done.%n",
        rounds);
    report.print(w);
    report.writeMarkdown(out.resolve("summary.md"));
    new Report(List.of("query", "engine", "steady_events_per_s", "events_per_s", "ratio_tide_steady", "ratio_tide_end_to_end",
        "cpu_s_per_m_events", "events_per_cpu_s", "cores_used", "peak_rss_mb", "results_equal"), csv).writeCsv(out.resolve("summary.csv"));
    String title = String.format(Locale.ROOT, "Nexmark, %,d events, parallelism %d", events, parallelism);
    Plots.throughput(out, title);
    Plots.curves(out, title);
    w.println("Wrote " + out.resolve("runs.csv") + ", summary.csv, summary.md, curve.csv, throughput.png, curve-*.png");
    w.flush();
    return allAgree ? 0 : 1;
  }

  /**
   * Why {@code engine} cannot run {@code query}, naming both, or empty if it can: Tide runs every
   * built-in query; Flink's DataStream jobs (engines flink and flink-full) and its SQL (flink-sql)
   * each cover their own list.
   */
  static Optional<String> unavailable(String engine, String query) {
    Optional<String> why = switch (engine) {
      case "flink", "flink-full" -> FlinkNexmarkRun.Job.DATASTREAM.unavailable(query);
      case "flink-sql" -> FlinkNexmarkRun.Job.SQL.unavailable(query);
      default -> Optional.empty();
    };
    return why.map(w -> "engine " + engine + " cannot run " + query + ": " + w);
  }

  /** A failure's root cause in at most 80 characters, for the table (the run's line above has it whole). */
  static String brief(String failure) {
    int cause = failure.lastIndexOf("root cause: ");
    String b = cause >= 0 ? failure.substring(cause + "root cause: ".length()) : failure;
    return b.length() <= 80 ? b : b.substring(0, 79) + "…";
  }

  private static String pct(double f) {
    return Math.round(f * 100) + "%";
  }

  /** What one child run gave: its measurement, or why there is none. */
  private record Outcome(Measurement measurement, String failure) {}

  /**
   * Runs one engine on one query in a child JVM. A run that fails (an exception, a JVM out of memory,
   * no result within --timeout-seconds plus two minutes) is an outcome too: the comparison records
   * it and goes on with the next run. The child's stderr is passed through; the first line that
   * names an out-of-memory error, else the child's failure, is kept as the reason.
   */
  private Outcome runChild(String engine, String query, int round) throws IOException, InterruptedException {
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
    Process p = new ProcessBuilder(cmd).start();
    AtomicReference<Measurement> result = new AtomicReference<>();
    AtomicReference<String> outOfMemory = new AtomicReference<>();
    AtomicReference<String> exception = new AtomicReference<>();
    Thread stdout = pump(p.getInputStream(), line -> {
      if (line.startsWith(Measurement.PREFIX)) {
        result.set(Measurement.parse(line));
      }
    });
    Thread stderr = pump(p.getErrorStream(), line -> {
      System.err.println(line);
      if (line.contains("java.lang.OutOfMemoryError")) {
        outOfMemory.compareAndSet(null, line.trim());
      } else if (line.startsWith(EngineRun.FAILED)) {
        exception.set(line.substring(EngineRun.FAILED.length()).trim());
      } else if (line.startsWith("Exception in thread")) {
        exception.compareAndSet(null, line.trim());
      }
    });
    boolean ended = p.waitFor(timeoutSeconds + 120, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly().waitFor();
    }
    stdout.join();
    stderr.join();
    if (result.get() != null) {
      return new Outcome(result.get(), null);
    }
    String why = !ended ? "no result within " + (timeoutSeconds + 120) + " s, killed"
        : outOfMemory.get() != null ? outOfMemory.get()
        : exception.get() != null ? exception.get() : "exit code " + p.exitValue() + " without a result";
    return new Outcome(null, why);
  }

  private static Thread pump(InputStream in, Consumer<String> onLine) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          onLine.accept(line);
        }
      } catch (IOException e) {
        // the child is gone; what it wrote is all there is
      }
    }, "compare-child-output");
    t.setDaemon(true);
    t.start();
    return t;
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
      if (!NexmarkJobs.names().contains(q)) {
        throw new ParameterException(spec.commandLine(), "--queries: '" + q + "' is not a built-in query; choose from " + NexmarkJobs.names());
      }
    }
    if (engines.isEmpty() || !engines.get(0).equals("tide") || engines.stream().distinct().count() != engines.size()
        || !EngineRun.ENGINES.containsAll(engines)) {
      throw new ParameterException(spec.commandLine(), "--engines " + String.join(",", engines)
          + " is invalid: must start with tide, name each engine once, and use only " + EngineRun.ENGINES);
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
