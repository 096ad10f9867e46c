package dev.tide.cli;

import dev.tide.cluster.TideProcess;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.stream.exchange.ExchangeConfig;
import dev.tide.stream.exchange.ExchangeProbe;
import java.util.regex.Pattern;
import dev.tide.proto.admin.CreateJobRequest;
import dev.tide.proto.admin.JobRequest;
import dev.tide.proto.admin.JobServiceGrpc;
import dev.tide.proto.admin.SourceProgress;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.ViewServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tide bench cluster}: a cluster of processes on loopback (meta and N compute processes).
 * Phase 1 runs q5 at a fixed rate and records the inject-to-commit latency of every barrier
 * (p50/p99). Phase 2 runs q5 over a bounded, unthrottled source and reports events/s, and the bids
 * per second that crossed the hash exchange (most of them between processes).
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Barrier latency p50/p99 and cross-process exchange throughput on a cluster of processes.")
final class ClusterBenchCommand implements Callable<Integer> {
  private static final Duration START_GUARD = Duration.ofMinutes(2);

  @Spec
  CommandSpec spec;

  @Option(names = "--computes", defaultValue = "3", description = "Compute processes (default: ${DEFAULT-VALUE}).")
  int computes;

  @Option(names = "--slots", defaultValue = "1", description = "Slots per compute process (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--rate", defaultValue = "10000", description = "Events/s of phase 1 (default: ${DEFAULT-VALUE}).")
  long rate;

  @Option(names = "--duration", defaultValue = "60s", converter = OptionChecks.DurationConverter.class,
      description = "Length of phase 1 (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--events", defaultValue = "2000000", description = "Events of phase 2 (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(names = "--exchange-chunks", defaultValue = "5000",
      description = "Chunks of 1024 bid rows sent through one cross-process exchange link (default: ${DEFAULT-VALUE}).")
  int exchangeChunks;

  @Override
  public Integer call() throws Exception {
    OptionChecks.range(spec, "--computes", computes, 1, 16);
    OptionChecks.range(spec, "--slots", slots, 1, 64);
    OptionChecks.range(spec, "--rate", rate, 1, 100_000_000);
    OptionChecks.range(spec, "--events", events, 1000, 1_000_000_000);
    OptionChecks.range(spec, "--duration", duration, Duration.ofSeconds(5), Duration.ofHours(2));
    OptionChecks.range(spec, "--exchange-chunks", exchangeChunks, 1, 10_000_000);
    PrintWriter out = spec.commandLine().getOut();
    Path dir = Files.createTempDirectory("tide-bench-cluster-");
    List<TideProcess> children = new ArrayList<>();
    ManagedChannel channel = null;
    try {
      List<String> common = List.of("--data-dir", dir.toString());
      TideProcess.Started meta = TideProcess.start("meta", concat(List.of("meta", "--listen", "127.0.0.1:0", "--http-port", "-1"), common),
          dir.resolve("meta.log"), TideProcess.META_READY, START_GUARD);
      children.add(meta.process());
      int port = Integer.parseInt(meta.ready().group(1));
      for (int i = 0; i < computes; i++) {
        children.add(TideProcess.start("compute-" + i, concat(List.of("compute", "--meta", "127.0.0.1:" + port, "--slots",
            String.valueOf(slots)), common), dir.resolve("compute-" + i + ".log"), TideProcess.COMPUTE_READY, START_GUARD).process());
      }
      channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      out.printf("cluster: meta + %d compute processes x %d slots on loopback; %s%n", computes, slots, MachineInfo.machine());
      exchangeLink(dir, children, out);
      barrierLatency(channel, out);
      exchangeThroughput(channel, out);
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      children.forEach(TideProcess::stop);
    }
    return TideCli.EXIT_OK;
  }

  /** Phase 0: one exchange link from this process to a receiver in a child process. */
  private void exchangeLink(Path dir, List<TideProcess> children, PrintWriter out) throws InterruptedException {
    TideProcess.Started receiver = TideProcess.startMain("exchange-receiver", ExchangeProbe.class.getName(), List.of("serve", "0"),
        dir.resolve("exchange-receiver.log"), Pattern.compile("listening on (\\d+)"), START_GUARD);
    children.add(receiver.process());
    ExchangeProbe.Result r = ExchangeProbe.send("127.0.0.1:" + receiver.ready().group(1), exchangeChunks, ExchangeConfig.defaults());
    out.printf("phase 0: one exchange link to another process: %,.0f records/s, %.0f MB/s (%d chunks of 1024 bid rows)%n",
        r.recordsPerSecond(), r.megabytesPerSecond(), exchangeChunks);
  }

  private void barrierLatency(ManagedChannel channel, PrintWriter out) throws InterruptedException {
    JobServiceGrpc.newBlockingStub(channel).create(CreateJobRequest.newBuilder().setQuery("q5").putSourceOptions("rate",
        String.valueOf(rate)).build());
    AdminServiceGrpc.AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(channel);
    Thread.sleep(5000); // warm-up: first barriers include actor start
    Histogram latency = new Histogram(3_600_000L, 3);
    long lastBarrier = -1;
    long end = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < end) {
      StatusResponse s = admin.withDeadlineAfter(10, TimeUnit.SECONDS).status(StatusRequest.getDefaultInstance());
      if (s.getCommittedBarriers() != lastBarrier) {
        if (lastBarrier >= 0) {
          latency.recordValue(Math.max(0, s.getBarrierLatencyMs()));
        }
        lastBarrier = s.getCommittedBarriers();
      }
      Thread.sleep(20);
    }
    out.printf("phase 1: q5 at %d events/s for %ds: %d barriers, latency p50 %d ms, p99 %d ms, max %d ms%n", rate,
        duration.toSeconds(), latency.getTotalCount(), latency.getValueAtPercentile(50), latency.getValueAtPercentile(99),
        latency.getMaxValue());
    JobServiceGrpc.newBlockingStub(channel).drop(JobRequest.newBuilder().setJob("q5").build());
    Thread.sleep(3000);
  }

  private void exchangeThroughput(ManagedChannel channel, PrintWriter out) throws InterruptedException {
    long start = System.nanoTime();
    JobServiceGrpc.newBlockingStub(channel).create(CreateJobRequest.newBuilder().setQuery("q5").putSourceOptions("events",
        String.valueOf(events)).build());
    ViewServiceGrpc.ViewServiceBlockingStub views = ViewServiceGrpc.newBlockingStub(channel);
    long bids = 0;
    while (true) {
      try {
        List<SourceProgress> p = views.withDeadlineAfter(30, TimeUnit.SECONDS).progress(JobRequest.newBuilder().setJob("q5").build())
            .getSourcesList();
        if (!p.isEmpty() && p.stream().allMatch(s -> s.getTotal() >= 0 && s.getEmitted() >= s.getTotal())) {
          bids = p.stream().filter(s -> s.getTable().equals("bid")).mapToLong(SourceProgress::getEmitted).sum();
          break;
        }
      } catch (StatusRuntimeException e) {
        // the job is still being created
      }
      Thread.sleep(100);
    }
    double secs = (System.nanoTime() - start) / 1e9;
    out.printf("phase 2: q5 over %d events unthrottled: %.1f s, %.0f events/s, %.0f bids/s through the hash exchange"
        + " (on average %d of %d bids cross processes)%n", events, secs, events / secs, bids / secs, computes - 1, computes);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
