package dev.tide.bench.rescale;

import dev.tide.bench.flink.FlinkCluster;
import dev.tide.cli.TempDirs;
import dev.tide.bench.flink.NexmarkEvents.Bid;
import dev.tide.bench.flink.NexmarkSources;
import dev.tide.cli.bench.HotRescaleBench;
import dev.tide.cli.bench.HotRescaleBench.Rescale;
import dev.tide.cli.bench.HotRescaleBench.Sample;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.Collector;

/**
 * Tide's saturated rescale ({@link HotRescaleBench}) on Flink: the same unthrottled bids counted and
 * maxed per {@code _row_id % keys} in keyed heap state, every update out, rescaled {@code p -> q -> p}
 * in one of Flink's two ways: stop with a savepoint and submit again at the new parallelism from it,
 * or the adaptive scheduler's in-place rescale (new upper bounds through the REST API's
 * {@code PUT /jobs/:id/resource-requirements}; it restarts the job from a checkpoint at the new
 * parallelism). Sampled every 10 ms like Tide's: rows the source readers produced, rows that reached
 * the keyed function (the sink side).
 */
public final class FlinkHotRescale {
  /** How the job is rescaled. */
  public enum Mode { SAVEPOINT, ADAPTIVE }

  private static final long EVENTS = 8_000_000_000L;
  private static final AtomicLong ARRIVED = new AtomicLong();

  private final HotRescaleBench.Settings settings;
  private final Mode mode;
  private final Consumer<String> progress;

  public FlinkHotRescale(HotRescaleBench.Settings settings, Mode mode, Consumer<String> progress) {
    this.settings = settings;
    this.mode = mode;
    this.progress = progress;
  }

  public HotRescaleBench.Run run() throws Exception {
    Path dir = Files.createTempDirectory("tide-flink-rescale-hot-");
    NexmarkSources.resetRows();
    ARRIVED.set(0);
    int slots = Math.max(settings.parallelism(), settings.scaledParallelism()) * 2;
    Consumer<Configuration> adaptive = c -> {
      if (mode == Mode.ADAPTIVE) {
        c.setString("jobmanager.scheduler", "adaptive");
        c.setString("jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling", "0 ms");
        c.setString("jobmanager.adaptive-scheduler.submission.resource-stabilization-timeout", "0 ms");
      }
    };
    try (FlinkCluster cluster = new FlinkCluster(dir, slots, settings.parallelism(), settings.barrierInterval(), adaptive)) {
      long start = System.nanoTime();
      List<Sample> samples = new ArrayList<>();
      Thread sampler = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          Sample s = new Sample(System.nanoTime() - start, NexmarkSources.rowsProduced(), ARRIVED.get());
          synchronized (samples) {
            samples.add(s);
          }
          try {
            TimeUnit.MILLISECONDS.sleep(10);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "flink-rescale-hot-sampler");
      sampler.setDaemon(true);
      sampler.start();
      JobID job = submit(cluster, settings.parallelism(), null);
      progress.accept(String.format(java.util.Locale.ROOT, "Flink (%s): running flat out for %s, then rescaling %d -> %d",
          mode, settings.warmup(), settings.parallelism(), settings.scaledParallelism()));
      TimeUnit.NANOSECONDS.sleep(settings.warmup().toNanos());
      List<Rescale> rescales = new ArrayList<>();
      Holder current = new Holder(job);
      rescales.add(rescale(cluster, dir, current, start, settings.parallelism(), settings.scaledParallelism()));
      TimeUnit.NANOSECONDS.sleep(settings.phase().toNanos());
      rescales.add(rescale(cluster, dir, current, start, settings.scaledParallelism(), settings.parallelism()));
      TimeUnit.NANOSECONDS.sleep(settings.phase().toNanos());
      sampler.interrupt();
      sampler.join();
      cluster.client().cancel(current.job).get(1, TimeUnit.MINUTES);
      synchronized (samples) {
        return new HotRescaleBench.Run(settings, List.copyOf(samples), rescales, 0);
      }
    } finally {
      TempDirs.deleteTree(dir);
    }
  }

  private static final class Holder {
    JobID job;

    Holder(JobID job) {
      this.job = job;
    }
  }

  /** Rescales; "committed" is when the job at the new parallelism is running again. */
  private Rescale rescale(FlinkCluster cluster, Path dir, Holder current, long start, int from, int to) throws Exception {
    String label = from + " -> " + to;
    long request = System.nanoTime() - start;
    long stateBytes;
    if (mode == Mode.SAVEPOINT) {
      String savepoint = cluster.client().stopWithSavepoint(current.job, false, dir.resolve("savepoints").toUri().toString(),
          SavepointFormatType.CANONICAL).get(5, TimeUnit.MINUTES);
      stateBytes = FlinkRescale.sizeOf(Path.of(URI.create(savepoint)));
      long arrived = ARRIVED.get();
      current.job = submit(cluster, to, savepoint);
      awaitRunning(cluster, current.job, arrived);
    } else {
      stateBytes = -1;
      setUpperBound(cluster, current.job, to);
      awaitParallelism(cluster, current.job, to);
    }
    Rescale r = new Rescale(label, request, System.nanoTime() - start, stateBytes);
    progress.accept(String.format(java.util.Locale.ROOT, "Flink (%s) rescaled %s: request to running %.0f ms", mode, label,
        (r.committedNanos() - r.requestNanos()) / 1e6));
    return r;
  }

  private JobID submit(FlinkCluster cluster, int parallelism, String savepoint) throws Exception {
    StreamExecutionEnvironment env = cluster.environment(parallelism);
    long keys = settings.keys();
    NexmarkSources.bids(env, NexmarkSources.config(42, 10_000), EVENTS, settings.splits(), 0,
            NexmarkSources.Columns.of(List.of(), List.of(), List.of("price", "_row_id")))
        .uid("source")
        .map(b -> Tuple2.of(Math.floorMod(b.rowId, keys), b.price)).returns(Types.TUPLE(Types.LONG, Types.LONG)).uid("key")
        .keyBy(t -> t.f0).process(new CountMax()).uid("count-max").returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
        .sinkTo(new DiscardingSink<>()).uid("sink");
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName("rescale-hot");
    graph.setJobId(new JobID());
    if (savepoint != null) {
      graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
    }
    return cluster.client().submitJob(graph).get();
  }

  /** Count and max per key in heap state; every update goes out. */
  static final class CountMax extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
    private transient ValueState<Tuple2<Long, Long>> state;
    private transient long unflushed;

    @Override
    public void open(OpenContext ctx) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("count-max", Types.TUPLE(Types.LONG, Types.LONG)));
    }

    @Override
    public void processElement(Tuple2<Long, Long> in, Context ctx, Collector<Tuple3<Long, Long, Long>> out) throws Exception {
      if (++unflushed == 1024) {
        ARRIVED.addAndGet(unflushed);
        unflushed = 0;
      }
      Tuple2<Long, Long> s = state.value();
      Tuple2<Long, Long> next = s == null ? Tuple2.of(1L, in.f1) : Tuple2.of(s.f0 + 1, Math.max(s.f1, in.f1));
      state.update(next);
      out.collect(Tuple3.of(in.f0, next.f0, next.f1));
    }
  }

  /** Waits until the job runs and rows reach its keyed function again (more than {@code arrived} in all). */
  private static void awaitRunning(FlinkCluster cluster, JobID job, long arrived) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (cluster.client().getJobStatus(job).get() != JobStatus.RUNNING || ARRIVED.get() <= arrived) {
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException("Flink job " + job + " did not run again within 5 minutes");
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  private static String get(FlinkCluster cluster, String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(cluster.restUri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  private static void setUpperBound(FlinkCluster cluster, JobID job, int parallelism) throws Exception {
    String requirements = get(cluster, "/jobs/" + job + "/resource-requirements");
    Matcher m = Pattern.compile("\"([0-9a-f]{32})\"\\s*:").matcher(requirements);
    StringBuilder body = new StringBuilder("{");
    while (m.find()) {
      body.append(body.length() > 1 ? "," : "").append('"').append(m.group(1))
          .append("\":{\"parallelism\":{\"lowerBound\":1,\"upperBound\":").append(parallelism).append("}}");
    }
    body.append('}');
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(cluster.restUri().resolve("/jobs/" + job
            + "/resource-requirements")).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("PUT resource-requirements " + body + ": " + r.statusCode() + " " + r.body());
    }
  }

  /** Waits until every vertex runs at {@code parallelism} and rows flow again. */
  private static void awaitParallelism(FlinkCluster cluster, JobID job, int parallelism) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    Pattern p = Pattern.compile("\"parallelism\"\\s*:\\s*(\\d+)");
    while (true) {
      String details = get(cluster, "/jobs/" + job);
      int vertices = details.indexOf("\"vertices\"");
      Matcher m = p.matcher(details.substring(Math.max(0, vertices)));
      boolean all = true;
      int seen = 0;
      while (m.find()) {
        seen++;
        all &= Integer.parseInt(m.group(1)) == parallelism;
      }
      if (seen > 0 && all && details.contains("\"state\":\"RUNNING\"")) {
        long arrived = ARRIVED.get();
        TimeUnit.MILLISECONDS.sleep(20);
        if (ARRIVED.get() > arrived) {
          return;
        }
      }
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException("Flink job " + job + " did not run at parallelism " + parallelism + " within 5 minutes: "
            + details);
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
