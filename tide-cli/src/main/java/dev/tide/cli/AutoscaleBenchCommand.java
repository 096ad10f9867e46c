package dev.tide.cli;

import dev.tide.cli.bench.AutoscaleTimeline;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.cli.text.Cells;
import dev.tide.cluster.CommittedViews;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.common.config.Durations;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.autoscale.AutoscalerOptions;
import dev.tide.meta.autoscale.LoadSample;
import dev.tide.meta.pool.ComputePool;
import dev.tide.meta.pool.ComputePoolOptions;
import dev.tide.meta.scale.AutoscaleSpec;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.sql.NexmarkJobs;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench autoscale}: a load trace on the real engine, with the job handed to the autoscaler
 * and an in-process compute pool; prints the timeline (load, events read, backlog, actors per fragment,
 * nodes, every action with its reason) and writes it as CSV and PNG.
 */
@Command(name = "autoscale", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Runs a load trace on an embedded cluster with the job owned by the autoscaler and an",
        "in-process compute pool, and prints what happened each second: the scheduled rate, the",
        "events the source read, its backlog, the actors of each fragment, the compute nodes and",
        "each decision with its reason. Writes timeline.csv and autoscale.png to --out.",
        ""})
public final class AutoscaleBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--query", defaultValue = "q5", description = "The Nexmark query (default: ${DEFAULT-VALUE}).")
  String query;

  @Option(names = "--trace", defaultValue = "20000,30s:1000000,45s:20000", paramLabel = "RATE[,OFFSET:RATE...]",
      description = "Events/s at the start, then changes at offsets from the job's start (default: ${DEFAULT-VALUE}).")
  String trace;

  @Option(names = "--duration", defaultValue = "240s", converter = OptionChecks.DurationConverter.class,
      description = "How long the trace runs (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--nodes", defaultValue = "1", description = "Compute nodes started by hand (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--slots", defaultValue = "2", description = "Slots per node, also of the nodes the pool adds (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--max", defaultValue = "4", description = "The autoscaler's most actors per fragment (default: ${DEFAULT-VALUE}).")
  int max;

  @Option(names = "--pool-max-slots", defaultValue = "4", description = "The compute pool's cap in slots (default: ${DEFAULT-VALUE}).")
  int poolMaxSlots;

  @Option(names = "--scale-down-delay", defaultValue = "20s", converter = OptionChecks.DurationConverter.class,
      description = "autoscaler.scale-down-delay for the run (default: ${DEFAULT-VALUE}).")
  Duration scaleDownDelay;

  @Option(names = "--out", defaultValue = "target/bench/autoscale", description = "Where timeline.csv and autoscale.png go (default: ${DEFAULT-VALUE}).")
  Path outDir;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    List<long[]> steps = parseTrace();
    if (nodes < 1 || slots < 1 || max < 1 || poolMaxSlots < nodes * slots) {
      throw new ParameterException(spec.commandLine(), "--nodes, --slots and --max must be at least 1, and --pool-max-slots at least"
          + " the slots started by hand (" + nodes * slots + "), got " + poolMaxSlots);
    }
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(500))
        .with(AutoscalerOptions.INTERVAL, Duration.ofSeconds(2)).with(AutoscalerOptions.STABILIZATION, Duration.ofSeconds(10))
        .with(AutoscalerOptions.METRIC_WINDOW, Duration.ofSeconds(10)).with(AutoscalerOptions.SCALE_DOWN_DELAY, scaleDownDelay)
        .with(AutoscalerOptions.CATCH_UP, Duration.ofSeconds(20))
        .with(ComputePoolOptions.PROVIDER, "in-process").with(ComputePoolOptions.NODE_SLOTS, slots)
        .with(ComputePoolOptions.MAX_SLOTS, poolMaxSlots).with(ComputePoolOptions.BACKLOG_TIMEOUT, Duration.ofSeconds(4))
        .with(ComputePoolOptions.SUSTAINED_TIMEOUT, Duration.ofSeconds(4)).with(ComputePoolOptions.IDLE_TIMEOUT, Duration.ofSeconds(30))
        .with(ComputePoolOptions.SCALE_DOWN_COOLDOWN, Duration.ofSeconds(5));
    out.println("Tide autoscale benchmark: " + query + ", trace " + trace + " for " + Durations.format(duration));
    MachineInfo.lines().forEach(out::println);
    out.printf(Locale.ROOT, "Setup    %d node(s) x %d slots by hand; autoscaler 1..%d actors, window 10s, stabilization 10s,"
        + " scale-down delay %s; compute pool in-process, nodes of %d slots up to %d slots, idle timeout 30s%n%n", nodes, slots, max,
        Durations.format(scaleDownDelay), slots, poolMaxSlots);
    Path dir = Files.createTempDirectory("tide-autoscale-bench");
    AutoscaleTimeline timeline = new AutoscaleTimeline();
    try (LocalCluster cluster = new LocalCluster(dir, config, nodes, slots)) {
      Map<String, String> options = new HashMap<>();
      options.put(NexmarkSourceOptions.EVENTS.key(), "-1");
      options.put(NexmarkSourceOptions.RATE.key(), String.valueOf(steps.get(0)[1]));
      options.put(NexmarkSourceOptions.EVENT_TIME_RATE.key(), String.valueOf(steps.get(0)[1]));
      options.put(NexmarkSourceOptions.SPLITS.key(), String.valueOf(Math.max(8, 2 * max)));
      StringBuilder rateSteps = new StringBuilder();
      for (long[] s : steps.subList(1, steps.size())) {
        rateSteps.append(rateSteps.length() == 0 ? "" : ",").append(s[0]).append("ms:").append(s[1]);
      }
      if (rateSteps.length() > 0) {
        options.put(NexmarkSourceOptions.RATE_STEPS.key(), rateSteps.toString());
      }
      JobDefinition job = cluster.submit(NexmarkJobs.plan(query, options));
      long startNanos = System.nanoTime();
      cluster.meta().reschedule(RescheduleRequest.autoscale(query, new AutoscaleSpec(1, max, 0)));
      ConcurrentLinkedQueue<AutoscaleTimeline.Action> pending = new ConcurrentLinkedQueue<>();
      cluster.meta().autoscaler().onDecision(d -> pending.add(new AutoscaleTimeline.Action(seconds(startNanos), "autoscaler",
          "fragment " + d.ensembleRoot() + ": " + d.reason() + " (" + d.outcome() + ")")));
      ComputePool pool = cluster.computePool().orElseThrow();
      long poolPrinted = 0;
      // Events read per second, over the last 3 s of committed progress (barriers commit every 500 ms, unevenly).
      java.util.ArrayDeque<long[]> reads = new java.util.ArrayDeque<>();
      reads.add(new long[] {System.nanoTime(), emitted(cluster, job)});
      out.println("      s   scheduled/s      read/s      backlog  nodes  actors per fragment");
      for (int tick = 1; tick <= duration.toSeconds(); tick++) {
        java.util.concurrent.TimeUnit.NANOSECONDS.sleep(Math.max(0, startNanos + tick * 1_000_000_000L - System.nanoTime()));
        long now = System.nanoTime();
        reads.addLast(new long[] {now, emitted(cluster, job)});
        while (reads.size() > 4) {
          reads.removeFirst();
        }
        long perSecond = Math.round((reads.peekLast()[1] - reads.peekFirst()[1]) / ((now - reads.peekFirst()[0]) / 1e9));
        ClusterSnapshot.JobView view = cluster.meta().snapshot().jobs().get(query);
        SortedMap<Integer, Integer> actors = new TreeMap<>();
        view.layout().fragments().forEach((f, a) -> actors.put(f, a.size()));
        int alive = (int) cluster.meta().workerHealth().stream().filter(w -> w.alive()).count();
        double t = seconds(startNanos);
        AutoscaleTimeline.Point p = new AutoscaleTimeline.Point(t, rateAt(steps, (long) (t * 1000)), perSecond, backlog(cluster, job),
            actors, alive);
        timeline.add(p);
        for (KeeperAction a : pool.view().recentActions()) {
          if (a.atMs() > poolPrinted) {
            poolPrinted = a.atMs();
            pending.add(new AutoscaleTimeline.Action(t, "compute pool", a.reason()));
          }
        }
        out.printf(Locale.ROOT, "  %5.0f  %12s  %10s  %11s  %5d  %s%n", t, Cells.count(p.scheduledRate()), Cells.count(perSecond),
            Cells.count(p.backlog()), alive, actors);
        for (AutoscaleTimeline.Action a; (a = pending.poll()) != null; ) {
          timeline.add(a);
          out.printf(Locale.ROOT, "  %5.0f  >> %s: %s%n", a.seconds(), a.who(), a.reason());
        }
        out.flush();
      }
      out.println();
      out.println("Actions: " + timeline.actions().stream().filter(a -> a.who().equals("autoscaler")).count() + " of the autoscaler, "
          + timeline.actions().stream().filter(a -> a.who().equals("compute pool")).count() + " of the compute pool; recoveries "
          + cluster.meta().stats().recoveries());
    } finally {
      TempDirs.deleteTree(dir);
    }
    timeline.writeCsv(outDir.resolve("timeline.csv"));
    timeline.writePng(outDir.resolve("autoscale.png"), "Tide autoscaler and compute pool: " + query + ", trace " + trace);
    out.println("Wrote " + outDir.resolve("timeline.csv") + " and " + outDir.resolve("autoscale.png"));
    out.flush();
    return TideCli.EXIT_OK;
  }

  /** {@code [offset ms, rate]} steps, the first at 0. */
  private List<long[]> parseTrace() {
    List<long[]> steps = new ArrayList<>();
    String[] parts = trace.split(",");
    try {
      steps.add(new long[] {0, Long.parseLong(parts[0].strip())});
      for (int i = 1; i < parts.length; i++) {
        String[] s = parts[i].strip().split(":");
        long at = Durations.parse(s[0]).toMillis();
        steps.add(new long[] {at, Long.parseLong(s[1])});
        if (at <= steps.get(steps.size() - 2)[0]) {
          throw new IllegalArgumentException("offsets must rise");
        }
      }
    } catch (RuntimeException e) {
      throw new ParameterException(spec.commandLine(), "--trace '" + trace + "': expected RATE[,OFFSET:RATE...] with rising offsets and"
          + " positive rates, such as 20000,30s:1000000,45s:20000 (" + e.getMessage() + ")");
    }
    if (steps.stream().anyMatch(s -> s[1] <= 0)) {
      throw new ParameterException(spec.commandLine(), "--trace '" + trace + "': rates must be positive");
    }
    return steps;
  }

  private static long rateAt(List<long[]> steps, long ms) {
    long rate = steps.get(0)[1];
    for (long[] s : steps) {
      if (s[0] <= ms) {
        rate = s[1];
      }
    }
    return rate;
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static long emitted(LocalCluster cluster, JobDefinition job) {
    return cluster.sourceProgress(job).stream().mapToLong(CommittedViews.SourceProgress::emitted).sum();
  }

  /** The source fragments' backlog in their newest committed epoch. */
  private static long backlog(LocalCluster cluster, JobDefinition job) {
    long committed = cluster.meta().stats().committedEpoch();
    long total = 0;
    for (int f : cluster.meta().snapshot().jobs().get(job.getName()).layout().fragments().keySet()) {
      List<LoadSample> s = cluster.meta().loads().samples(job.getJobId(), f, committed);
      if (!s.isEmpty() && s.get(s.size() - 1).backlog() > 0) {
        total += s.get(s.size() - 1).backlog();
      }
    }
    return total;
  }

}
