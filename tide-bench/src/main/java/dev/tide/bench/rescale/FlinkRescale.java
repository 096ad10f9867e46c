package dev.tide.bench.rescale;

import dev.tide.cli.TempDirs;
import dev.tide.bench.flink.FlinkCluster;
import dev.tide.bench.flink.NexmarkEvents.Bid;
import dev.tide.bench.flink.NexmarkSources;
import dev.tide.cli.bench.RescaleAnalysis;
import dev.tide.cli.bench.RescaleJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.Collector;

/**
 * Flink's way to rescale the rescale benchmark's job ({@link RescaleJob}): stop with a savepoint, then
 * submit the same job at the new parallelism restoring from it. The job is the same as Tide's: a bounded,
 * unthrottled backfill of bids (the same events, seed {@code 7}) kept in keyed state per {@code _row_id}
 * (the bulk of the state), and a live bid stream at a fixed rate counted and summed per auction, every
 * update going to a sink that records when it arrived ({@link OutputTimeline}).
 *
 * <p>Figures, from the sink's point of view: the <b>gap</b> is the longest time with no output from
 * one bucket before the request until the job runs steadily again; <b>to steady</b> is from the request
 * until the first of {@link RescaleAnalysis#STEADY_WINDOWS} windows of {@code window} length whose output
 * is within {@link RescaleAnalysis#STEADY_BAND} of the rate before the request.
 */
public final class FlinkRescale {
  /** Splits of the live source: enough for every reader at the larger parallelism. */
  static final int LIVE_SPLITS = 8;
  /** Events of the live stream: more than any run consumes, few enough that event times do not overflow. */
  static final long LIVE_EVENTS = 8_000_000_000L;
  /** Seeds and event-time rate of Tide's {@link RescaleJob}: 7 for the backfill, the source default 42 for the live stream. */
  static final long BACKFILL_SEED = 7;
  static final long LIVE_SEED = 42;
  static final long EVENT_TIME_RATE = 10_000;
  private static final Map<String, OutputTimeline> TIMELINES = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> BACKFILLED = new ConcurrentHashMap<>();

  /**
   * @param rate events per second of the live stream (all tables; its bids are 46 of 50)
   * @param window length of a throughput window
   * @param quiet steady running before the request, at least
   * @param settleTimeout most time to wait for steady output, before and after
   */
  public record Settings(long rate, int parallelism, int scaledParallelism, Duration checkpointInterval, Duration window,
      Duration quiet, Duration settleTimeout, Duration loadTimeout) {}

  /**
   * @param savepointBytes size of the savepoint on disk
   * @param stopMs request until the savepoint was written and the job stopped
   * @param restartMs savepoint done until the restored job's first output
   * @param gapMs longest time with no output around the rescale
   * @param secondsToSteady request until steady output again; NaN if it did not settle
   * @param backfillReplayed bids the restored job read again from the finished backfill source (0: it
   *     was restored as finished, as it should be)
   */
  public record Outcome(long backfillEvents, double backfillSeconds, long savepointBytes, double stopMs, double restartMs,
      double gapMs, double secondsToSteady, double eventsPerSecondBefore, double eventsPerSecondAfter, long backfillReplayed) {}

  private final Settings settings;
  private final Consumer<String> progress;

  public FlinkRescale(Settings settings, Consumer<String> progress) {
    this.settings = settings;
    this.progress = progress;
  }

  public Outcome run(long targetBytes) throws Exception {
    Path dir = Files.createTempDirectory("tide-flink-rescale-");
    String name = "rescale-" + System.nanoTime();
    long events = RescaleJob.backfillEventsFor(targetBytes);
    long start = System.nanoTime();
    OutputTimeline timeline = new OutputTimeline(start, TimeUnit.MINUTES.toNanos(60));
    TIMELINES.put(name, timeline);
    AtomicLong backfilled = new AtomicLong();
    BACKFILLED.put(name, backfilled);
    long backfillBids = dev.tide.stream.nexmark.NexmarkGenerator.ordinalsBelow(dev.tide.stream.nexmark.NexmarkTable.BID, events);
    try (FlinkCluster cluster = new FlinkCluster(dir, settings.scaledParallelism(), settings.parallelism(), settings.checkpointInterval())) {
      JobID job = submit(cluster, name, events, settings.parallelism(), null);
      progress.accept(String.format(java.util.Locale.ROOT, "backfilling %,d events", events));
      await(() -> backfilled.get() >= backfillBids, start + settings.loadTimeout().toNanos(),
          "Flink backfill of " + events + " events did not finish within " + settings.loadTimeout());
      double backfillSeconds = (System.nanoTime() - start) / 1e9;
      long window = settings.window().toNanos();
      double bidRate = settings.rate() * 46.0 / 50;
      progress.accept("running steadily, then stop-with-savepoint and restore " + settings.parallelism() + " -> "
          + settings.scaledParallelism());
      long quietEnd = System.nanoTime() + settings.quiet().toNanos();
      long steadyDeadline = quietEnd + settings.settleTimeout().toNanos();
      while (System.nanoTime() < steadyDeadline
          && (System.nanoTime() < quietEnd || !steadyBefore(timeline, System.nanoTime(), window, bidRate))) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      long request = System.nanoTime();
      double before = timeline.outputs(request - RescaleAnalysis.BEFORE_WINDOWS * window, request)
          / (RescaleAnalysis.BEFORE_WINDOWS * window / 1e9);
      String savepoint = cluster.client().stopWithSavepoint(job, false, dir.resolve("savepoints").toUri().toString(),
          SavepointFormatType.CANONICAL).get(settings.settleTimeout().toSeconds(), TimeUnit.SECONDS);
      long stopped = System.nanoTime();
      long savepointBytes = sizeOf(Path.of(java.net.URI.create(savepoint)));
      submit(cluster, name, events, settings.scaledParallelism(), savepoint);
      long firstAfter = -1;
      long deadline = stopped + settings.settleTimeout().toNanos();
      double secondsToSteady = Double.NaN;
      while (System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(50);
        long now = System.nanoTime();
        if (firstAfter < 0 && timeline.outputs(stopped, now) > 0) {
          firstAfter = firstOutputAfter(timeline, stopped, now);
        }
        int k = steadyWindow(timeline, request, now, window, before);
        if (k >= 0) {
          secondsToSteady = k * window / 1e9;
          break;
        }
      }
      long end = System.nanoTime();
      double gapMs = timeline.longestGapMs(request - OutputTimeline.BUCKET_NANOS, end);
      double after = Double.isNaN(secondsToSteady) ? Double.NaN
          : timeline.outputs(request + (long) (secondsToSteady * 1e9), end) / ((end - request - secondsToSteady * 1e9) / 1e9);
      return new Outcome(events, backfillSeconds, savepointBytes, (stopped - request) / 1e6,
          firstAfter < 0 ? Double.NaN : (firstAfter - stopped) / 1e6, gapMs, secondsToSteady, before, after,
          backfilled.get() - backfillBids);
    } finally {
      TIMELINES.remove(name);
      BACKFILLED.remove(name);
      TempDirs.deleteTree(dir);
    }
  }

  private static boolean steadyBefore(OutputTimeline t, long now, long window, double rate) {
    for (int i = 1; i <= RescaleAnalysis.BEFORE_WINDOWS; i++) {
      double r = t.outputs(now - i * window, now - (i - 1) * window) / (window / 1e9);
      if (Math.abs(r - rate) > RescaleAnalysis.STEADY_BAND * rate) {
        return false;
      }
    }
    return true;
  }

  /** The index of the first of the steady windows after {@code request}, or -1 if not (yet) seen. */
  private static int steadyWindow(OutputTimeline t, long request, long now, long window, double reference) {
    int run = 0;
    for (int k = 0; request + (k + 1) * window <= now; k++) {
      double r = t.outputs(request + k * window, request + (k + 1) * window) / (window / 1e9);
      run = Math.abs(r - reference) <= RescaleAnalysis.STEADY_BAND * reference ? run + 1 : 0;
      if (run == RescaleAnalysis.STEADY_WINDOWS) {
        return k - RescaleAnalysis.STEADY_WINDOWS + 1;
      }
    }
    return -1;
  }

  private static long firstOutputAfter(OutputTimeline t, long from, long to) {
    for (long b = from; b < to; b += OutputTimeline.BUCKET_NANOS) {
      if (t.outputs(b, b + OutputTimeline.BUCKET_NANOS) > 0) {
        return b;
      }
    }
    return to;
  }

  private JobID submit(FlinkCluster cluster, String name, long backfillEvents, int parallelism, String savepoint) throws Exception {
    StreamExecutionEnvironment env = cluster.environment(parallelism);
    var backfill = NexmarkSources.bids(env, NexmarkSources.config(BACKFILL_SEED, EVENT_TIME_RATE), backfillEvents, parallelism, 0,
        NexmarkSources.Columns.ALL)
        .uid("backfill-source");
    var live = NexmarkSources.bids(env, NexmarkSources.config(LIVE_SEED, EVENT_TIME_RATE), LIVE_EVENTS, LIVE_SPLITS,
        Math.round(settings.rate() * 46.0 / 50), NexmarkSources.Columns.ALL).uid("live-source");
    backfill.connect(live).keyBy(b -> b.rowId, b -> b.auction).process(new Keep(name)).uid("keep")
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
        .sinkTo(new TimelineSink(name)).uid("timeline");
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName(RescaleJob.NAME);
    graph.setJobId(new JobID());
    if (savepoint != null) {
      graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
    }
    return cluster.client().submitJob(graph).get();
  }

  /** Input 1 (backfill): keeps each bid by {@code _row_id}. Input 2 (live): count and sum per auction, every update out. */
  static final class Keep extends KeyedCoProcessFunction<Long, Bid, Bid, Tuple3<Long, Long, Long>> {
    private transient ValueState<Bid> kept;
    private transient ValueState<Tuple2<Long, Long>> countSum;
    private final String run;
    private transient AtomicLong backfilled;

    Keep(String run) {
      this.run = run;
    }

    @Override
    public void open(OpenContext ctx) {
      kept = getRuntimeContext().getState(new ValueStateDescriptor<>("kept", TypeInformation.of(Bid.class)));
      countSum = getRuntimeContext().getState(new ValueStateDescriptor<>("count-sum", Types.TUPLE(Types.LONG, Types.LONG)));
      backfilled = BACKFILLED.getOrDefault(run, new AtomicLong());
    }

    @Override
    public void processElement1(Bid b, Context ctx, Collector<Tuple3<Long, Long, Long>> out) throws Exception {
      Bid copy = new Bid();
      copy.auction = b.auction;
      copy.bidder = b.bidder;
      copy.price = b.price;
      copy.channel = b.channel;
      copy.url = b.url;
      copy.dateTime = b.dateTime;
      copy.extra = b.extra;
      copy.rowId = b.rowId;
      kept.update(copy);
      backfilled.incrementAndGet();
    }

    @Override
    public void processElement2(Bid b, Context ctx, Collector<Tuple3<Long, Long, Long>> out) throws Exception {
      Tuple2<Long, Long> cs = countSum.value();
      Tuple2<Long, Long> next = cs == null ? Tuple2.of(1L, b.price) : Tuple2.of(cs.f0 + 1, cs.f1 + b.price);
      countSum.update(next);
      out.collect(Tuple3.of(b.auction, next.f0, next.f1));
    }
  }

  /** Records the arrival of every update in the run's {@link OutputTimeline}. */
  static final class TimelineSink implements Sink<Tuple3<Long, Long, Long>> {
    private static final long serialVersionUID = 1L;
    private final String run;

    TimelineSink(String run) {
      this.run = run;
    }

    @Override
    public SinkWriter<Tuple3<Long, Long, Long>> createWriter(WriterInitContext context) {
      OutputTimeline t = TIMELINES.get(run);
      return new SinkWriter<>() {
        @Override
        public void write(Tuple3<Long, Long, Long> element, Context c) {
          t.record(System.nanoTime(), 1);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
  }

  private static void await(java.util.function.BooleanSupplier c, long deadline, String message) throws InterruptedException {
    while (!c.getAsBoolean()) {
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException(message);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  static long sizeOf(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

}
