package dev.tide.cli.playground;

import dev.tide.cli.ctl.MetaAddress;
import dev.tide.cli.text.Cells;
import dev.tide.cli.text.TextTable;
import dev.tide.cluster.LocalCluster;
import dev.tide.cluster.OptimizerGroups;
import dev.tide.cluster.CommittedViews.SourceProgress;
import dev.tide.common.config.Durations;
import dev.tide.meta.Meta;
import dev.tide.meta.autoscale.Autoscaler;
import dev.tide.meta.scale.AutoscaleSpec;
import dev.tide.meta.MetaStats;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.RescheduleResult;
import dev.tide.optimizer.keeper.GroupView;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.proto.plan.FieldProto;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.sql.NexmarkJobs;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The playground's driver: runs the script's {@link PlaygroundStep}s at their times against a
 * running {@link LocalCluster}, prints a progress line each second, and ends with a summary and the
 * newest rows of every view.
 *
 * <p>Progress comes from committed state only: events from the sources' committed split offsets,
 * rows from a scan of each view at the committed version.
 *
 * <p>Thread-safety: confined to the thread that calls {@link #run}. Each turn of its loop reads the
 * clock once and acts on that reading (steps due, a progress line, the end); it then sleeps until
 * the next tick, step or end, whichever comes first.
 */
public final class Playground {
  private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int TOP_ROWS = 10;
  /**
   * Events/s average over this many ticks. Committed progress advances in steps, once per committed
   * barrier, so a one-second difference alternates between zero and double when barriers take
   * about a second; a few seconds smooth that out.
   */
  static final int RATE_WINDOW_TICKS = 3;
  /** Splits per slot of the initial cluster: leaves room for actors added by scaling out. */
  private static final int SPLITS_PER_SLOT = 4;

  private final PlaygroundSettings settings;
  private final List<PlaygroundView> views;
  private final List<PlaygroundStep> steps;
  private final PrintWriter out;
  private final ProgressTable table;
  private final Map<String, JobDefinition> jobs = new TreeMap<>();

  public Playground(PlaygroundSettings settings, List<PlaygroundView> views, List<PlaygroundStep> steps, PrintWriter out) {
    this.settings = settings;
    this.views = List.copyOf(views);
    this.steps = steps.stream().sorted(Comparator.comparing(PlaygroundStep::at)).toList();
    this.out = out;
    this.table = new ProgressTable(views);
  }

  /** What a step may use: the cluster, the settings, and query submission. */
  public final class Session {
    private final LocalCluster cluster;

    private Session(LocalCluster cluster) {
      this.cluster = cluster;
    }

    public LocalCluster cluster() {
      return cluster;
    }

    public PlaygroundSettings settings() {
      return settings;
    }

    /**
     * Starts a view's query on the rate-limited unbounded source, with {@code options} added to the
     * playground's source options; returns what was placed.
     */
    public String submit(PlaygroundView view, Map<String, String> options) {
      Map<String, String> o = new LinkedHashMap<>(sourceOptions());
      o.putAll(options);
      JobDefinition def = cluster.submit(NexmarkJobs.plan(view.query(), o));
      jobs.put(view.query(), def);
      int actors = cluster.meta().layout(def.getName()).allActors().size();
      return def.getFragmentsCount() + " fragments, " + actors + " actors";
    }

    /**
     * Starts a query as a bounded backfill of {@code events} events at {@code rate} events/s (a
     * burst of state writes, hence of compaction work); returns what was placed.
     */
    public String backfill(String query, long events, long rate) {
      Map<String, String> o = new LinkedHashMap<>(sourceOptions());
      o.put(NexmarkSourceOptions.RATE.key(), String.valueOf(rate));
      o.put(NexmarkSourceOptions.EVENTS.key(), String.valueOf(events));
      JobDefinition def = cluster.submit(NexmarkJobs.plan(query, o));
      int actors = cluster.meta().layout(def.getName()).allActors().size();
      return def.getFragmentsCount() + " fragments, " + actors + " actors";
    }

    /**
     * Hands a running view's job to the autoscaler with {@code 1..max} actors per fragment; its
     * decisions, taken from the load the actors measure, print as they come.
     */
    public String autoscale(String query, int max) {
      try {
        RescheduleResult r = cluster.meta().reschedule(RescheduleRequest.autoscale(query, new AutoscaleSpec(1, max, 0)));
        return "intent " + r.intent().render();
      } catch (IllegalArgumentException | IllegalStateException e) {
        return "skipped: " + e.getMessage();
      }
    }
  }

  /**
   * Options of every query's source: unbounded, rate-limited, and event time advancing at the same
   * rate as the stream so that event-time windows close at wall-clock speed.
   */
  Map<String, String> sourceOptions() {
    int splits = Math.min(4096, SPLITS_PER_SLOT * settings.nodes() * settings.slotsPerNode());
    Map<String, String> o = new LinkedHashMap<>();
    o.put(NexmarkSourceOptions.RATE.key(), String.valueOf(settings.ratePerQuery()));
    o.put(NexmarkSourceOptions.EVENT_TIME_RATE.key(), String.valueOf(settings.ratePerQuery()));
    o.put(NexmarkSourceOptions.SPLITS.key(), String.valueOf(splits));
    return o;
  }

  /** Runs the script for the configured duration, printing progress; returns the final reading. */
  public Sample run(LocalCluster cluster) throws Exception {
    return run(cluster, null);
  }

  /**
   * As {@link #run(LocalCluster)}, announcing meta's admin API at {@code adminAddress}
   * ({@code HOST:PORT}, or null when it is not served) in the intro.
   */
  public Sample run(LocalCluster cluster, String adminAddress) throws Exception {
    Session session = new Session(cluster);
    printIntro(adminAddress);
    out.println(table.header());
    long startNanos = System.nanoTime();
    long endNanos = startNanos + settings.duration().toNanos();
    long nextTickNanos = startNanos + TICK_NANOS;
    ArrayDeque<Sample> window = new ArrayDeque<>();
    window.add(new Sample(0, Map.of(), Map.of(), cluster.meta().stats(), 0, 0, List.of()));
    KeeperAction lastAction = null;
    java.util.concurrent.ConcurrentLinkedQueue<Autoscaler.Decision> decisions = new java.util.concurrent.ConcurrentLinkedQueue<>();
    cluster.meta().autoscaler().onDecision(decisions::add);
    long poolPrintedAtMs = cluster.computePool().map(p -> p.view().recentActions().stream().mapToLong(KeeperAction::atMs).max()
        .orElse(0)).orElse(0L);
    int nextStep = 0;
    while (true) {
      long now = System.nanoTime();
      while (nextStep < steps.size() && startNanos + steps.get(nextStep).at().toNanos() <= now) {
        runStep(steps.get(nextStep++), session, now - startNanos);
      }
      boolean end = now >= endNanos;
      if (now >= nextTickNanos || end) {
        Sample s = sample(cluster, now - startNanos);
        out.println(table.row(window.peekFirst(), s));
        // Every action of the optimizer group's keeper, once, with its reason.
        for (KeeperAction a : s.actionsAfter(lastAction)) {
          out.println(table.step(s.elapsedNanos(), "optimizer group: " + a.reason()));
          lastAction = a;
        }
        // Every autoscaler decision, with the load it was taken from.
        for (Autoscaler.Decision d; (d = decisions.poll()) != null; ) {
          out.println(table.step(s.elapsedNanos(), "autoscaler: " + d.job() + " fragment " + d.ensembleRoot() + ": " + d.reason()
              + (d.outcome().equals("applied") ? "" : " (" + d.outcome() + ")")));
        }
        // And of the compute pool's keeper: nodes launched when q5 wants more slots, drained when it no longer does.
        if (cluster.computePool().isPresent()) {
          for (KeeperAction a : cluster.computePool().get().view().recentActions()) {
            if (a.atMs() > poolPrintedAtMs) {
              out.println(table.step(s.elapsedNanos(), "compute pool: " + a.reason()));
              poolPrintedAtMs = a.atMs();
            }
          }
        }
        out.flush();
        window.addLast(s);
        while (window.size() > RATE_WINDOW_TICKS + 1) {
          window.removeFirst();
        }
        // A slow reading skips the ticks it overran rather than printing them late, all at once.
        long after = System.nanoTime();
        while (nextTickNanos <= after) {
          nextTickNanos += TICK_NANOS;
        }
      }
      if (end) {
        return window.peekLast();
      }
      long wake = Math.min(nextTickNanos, endNanos);
      if (nextStep < steps.size()) {
        wake = Math.min(wake, startNanos + steps.get(nextStep).at().toNanos());
      }
      TimeUnit.NANOSECONDS.sleep(Math.max(0, wake - System.nanoTime()));
    }
  }

  private void printIntro(String adminAddress) {
    out.printf(Locale.ROOT, "Tide playground: %d compute nodes x %d slots, barrier interval %s, running %s%n",
        settings.nodes(), settings.slotsPerNode(), Durations.format(settings.barrierInterval()),
        Durations.format(settings.duration()));
    out.printf(Locale.ROOT, "Source: unbounded Nexmark stream, %s events/s per query; event time advances at the same pace%n",
        Cells.count(settings.ratePerQuery()));
    out.printf(Locale.ROOT, "Progress: committed state only; events/s averaged over the last %ds%n", RATE_WINDOW_TICKS);
    for (PlaygroundView v : views) {
      out.println("  " + v.query() + ": " + v.title());
    }
    List<String> acts = steps.stream().filter(s -> s.at().compareTo(Duration.ZERO) > 0)
        .map(s -> s.label() + " at " + ProgressTable.seconds(s.at().toNanos())).toList();
    if (!acts.isEmpty()) {
      out.println("Script: " + String.join(", then ", acts));
    }
    if (adminAddress != null) {
      String meta = adminAddress.equals(MetaAddress.DEFAULT) ? "" : " --meta " + adminAddress;
      out.println("admin API on " + adminAddress + " — try ./tide ctl cluster" + meta);
      out.println("  more: ctl autoscale show q5 | pool show | fragments q5 --stats | scale q1 --parallelism 4 --dry-run | pause q7 | worker add | worker drain ID");
    }
    out.println();
  }

  private void runStep(PlaygroundStep step, Session session, long elapsedNanos) throws Exception {
    String result = step.action() == null ? null : step.action().run(session);
    out.println(table.step(elapsedNanos, step.label() + (result == null ? "" : ": " + result)));
    out.flush();
  }

  private Sample sample(LocalCluster cluster, long elapsedNanos) {
    MetaStats stats = cluster.meta().stats();
    Map<String, Long> events = new TreeMap<>();
    Map<String, Long> rows = new TreeMap<>();
    jobs.forEach((view, job) -> {
      events.put(view, streamEvents(cluster.sourceProgress(job)));
      rows.put(view, (long) cluster.scan(view).size());
    });
    List<GroupView> groups = cluster.groups().list();
    int optimizers = groups.stream().mapToInt(g -> g.metrics().instances()).sum();
    List<KeeperAction> actions = groups.stream().filter(g -> g.name().equals(OptimizerGroups.DEFAULT_GROUP.name()))
        .map(GroupView::recentActions).findFirst().orElse(List.of());
    int tasks = groups.stream().mapToInt(g -> g.metrics().pendingTasks() + g.metrics().executingTasks()).sum();
    return new Sample(elapsedNanos, events, rows, stats, optimizers, tasks, actions);
  }

  /**
   * Events of the whole Nexmark stream (all tables) a job's sources have covered: the event id just
   * past the last row of the source that got furthest. A job reading only bids has covered the
   * persons and auctions in between as well.
   */
  static long streamEvents(List<SourceProgress> sources) {
    long events = 0;
    for (SourceProgress p : sources) {
      if (p.emitted() > 0) {
        NexmarkTable t = NexmarkTable.valueOf(p.table().toUpperCase(Locale.ROOT));
        events = Math.max(events, NexmarkGenerator.eventId(t, p.emitted() - 1) + 1);
      }
    }
    return events;
  }

  /** Prints the summary of a finished run and the newest rows of each view. */
  public void printSummary(LocalCluster cluster, Sample last) {
    Map<String, List<Object[]>> contents = new TreeMap<>();
    for (PlaygroundView v : views) {
      contents.put(v.query(), jobs.containsKey(v.query()) ? cluster.scan(v.query()) : List.of());
    }
    MetaStats stats = cluster.meta().stats();
    double seconds = last.elapsedNanos() / 1e9;
    List<String> perView = new ArrayList<>();
    List<String> rowCounts = new ArrayList<>();
    for (PlaygroundView v : views) {
      perView.add(v.query() + " " + Cells.count(last.events(v.query())));
      rowCounts.add(v.query() + " " + Cells.count(contents.get(v.query()).size()));
    }
    out.println();
    out.println("Summary after " + ProgressTable.seconds(last.elapsedNanos()) + " (committed state)");
    out.println("  events       " + Cells.count(last.totalEvents()) + " (" + String.join(", ", perView) + ")");
    out.println("  events/s     " + Cells.count(Math.round(seconds <= 0 ? 0 : last.totalEvents() / seconds)) + " on average");
    out.println("  checkpoints  epoch " + stats.committedEpoch() + " committed, last barrier latency " + stats.barrierLatencyMs() + "ms");
    out.println("  recoveries   " + stats.recoveries());
    out.println("  rows         " + String.join(", ", rowCounts));
    for (PlaygroundView v : views) {
      printTop(cluster, v, contents.get(v.query()));
    }
    out.flush();
  }

  private void printTop(LocalCluster cluster, PlaygroundView view, List<Object[]> rows) {
    out.println();
    TableCatalog t = cluster.meta().view(view.query()).orElse(null);
    if (t == null) {
      out.println("View " + view.query() + ": not created");
      return;
    }
    List<FieldProto> columns = t.getColumnsList().subList(0, t.getVisibleColumns());
    List<String> names = columns.stream().map(FieldProto::getName).toList();
    List<Object[]> top = rows.stream().sorted(newestFirst(view, names)).limit(TOP_ROWS).toList();
    out.println("View " + view.query() + " (" + view.title() + "): " + top.size() + " newest of "
        + Cells.count(rows.size()) + " rows");
    List<List<String>> cells = new ArrayList<>();
    for (Object[] row : top) {
      List<String> line = new ArrayList<>();
      for (int c = 0; c < columns.size(); c++) {
        line.add(Cells.value(row[c], columns.get(c).getType()));
      }
      cells.add(line);
    }
    TextTable.render("  ", names, cells).forEach(out::println);
  }

  /** Orders rows by the view's {@code newestFirst} columns, each descending; other rows keep key order. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Comparator<Object[]> newestFirst(PlaygroundView view, List<String> names) {
    Comparator<Object[]> order = (a, b) -> 0;
    for (String column : view.newestFirst()) {
      int i = names.indexOf(column);
      if (i < 0) {
        continue;
      }
      Comparator<Object[]> byColumn = (a, b) -> {
        Comparable x = (Comparable) a[i];
        Comparable y = (Comparable) b[i];
        return x == null ? (y == null ? 0 : -1) : y == null ? 1 : x.compareTo(y);
      };
      order = order.thenComparing(byColumn.reversed());
    }
    return order;
  }
}
