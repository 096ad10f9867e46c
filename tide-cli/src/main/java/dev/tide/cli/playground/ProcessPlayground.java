package dev.tide.cli.playground;

import dev.tide.cluster.TideProcess;
import dev.tide.common.config.Durations;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.CreateJobRequest;
import dev.tide.proto.admin.JobServiceGrpc;
import dev.tide.proto.admin.ScaleJobRequest;
import dev.tide.proto.admin.ScanRequest;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.ViewServiceGrpc;
import dev.tide.proto.admin.WorkerHealth;
import dev.tide.proto.group.GroupRequest;
import dev.tide.proto.group.GroupServiceGrpc;
import dev.tide.proto.group.KeeperActionView;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The playground as a real cluster: {@code tide meta} and {@code tide compute} child processes on
 * loopback, driven through the same gRPC API as {@code tide ctl}. While q5 and q7 run it adds a
 * compute process (jobs spread onto it), scales q5 out online, SIGKILLs a compute process (the
 * jobs recover onto the others) and prints what happened each second.
 */
public final class ProcessPlayground {
  private static final Duration START_GUARD = Duration.ofMinutes(2);
  private static final List<String> QUERIES = List.of("q5", "q7");

  private final PlaygroundSettings settings;
  private final PrintWriter out;
  private final List<TideProcess> children = new ArrayList<>();
  /** When the newest keeper action printed was decided (actions of one round share it). */
  private long lastActionAtMs = Long.MIN_VALUE;

  public ProcessPlayground(PlaygroundSettings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the whole script; stops every child before it returns. */
  public void run(int metaPort) throws InterruptedException {
    Path dir = settings.dataDir();
    List<String> common = List.of("--data-dir", dir.toString(), "--set", "barrier.interval=" + Durations.format(settings.barrierInterval()),
        "--set", "heartbeat.interval=500ms", "--set", "heartbeat.timeout=4s", "--set", "scaling.settle-delay=2s");
    ManagedChannel channel = null;
    try {
      TideProcess.Started meta = start("meta", concat(List.of("meta", "--listen", "127.0.0.1:" + metaPort, "--http-port", "0"), common),
          TideProcess.META_READY);
      int port = Integer.parseInt(meta.ready().group(1));
      out.printf("meta        pid %d, gRPC 127.0.0.1:%d, metrics http://127.0.0.1:%s/metrics%n", meta.process().process().pid(), port,
          meta.ready().group(2));
      out.printf("dashboard   http://127.0.0.1:%s/%n", meta.ready().group(2));
      for (int i = 0; i < settings.nodes(); i++) {
        startCompute(port, common);
      }
      channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      JobServiceGrpc.JobServiceBlockingStub jobs = JobServiceGrpc.newBlockingStub(channel);
      for (String q : QUERIES) {
        var r = jobs.withDeadlineAfter(60, TimeUnit.SECONDS).create(CreateJobRequest.newBuilder().setQuery(q)
            .putSourceOptions("rate", String.valueOf(settings.ratePerQuery())).build());
        out.printf("job %s created with %d actors%n", r.getJob(), r.getActors());
      }
      out.printf("(try: ./tide ctl cluster --meta 127.0.0.1:%d)%n%n", port);
      script(channel, port, common);
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      children.forEach(TideProcess::stop);
    }
  }

  private void script(ManagedChannel channel, int port, List<String> common) throws InterruptedException {
    AdminServiceGrpc.AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(channel);
    long seconds = Math.max(10, settings.duration().toSeconds());
    long join = seconds * 25 / 100;
    long scale = seconds * 45 / 100;
    long kill = seconds * 65 / 100;
    for (long s = 1; s <= seconds; s++) {
      Thread.sleep(1000);
      if (s == join) {
        out.println(">> adding a compute process: adaptive jobs spread onto its slots after the settle delay");
        startCompute(port, common);
      } else if (s == scale) {
        out.println(">> scaling q5 to 8 actors per fragment, online");
        try {
          var r = admin.withDeadlineAfter(30, TimeUnit.SECONDS).scale(ScaleJobRequest.newBuilder().setJob("q5").setParallelism("8").build());
          out.printf("   actors %d -> %d, %d vnodes moved%n", r.getActorsBefore(), r.getActorsAfter(), r.getMovedVnodes());
        } catch (StatusRuntimeException e) {
          out.println("   refused: " + e.getStatus().getDescription());
        }
      } else if (s == kill) {
        TideProcess victim = children.get(1);
        out.printf(">> SIGKILL %s (pid %d): meta declares it lost after the heartbeat timeout and recovers its actors%n",
            victim.name(), victim.process().pid());
        victim.kill();
      }
      line(channel, s);
    }
  }

  private void line(ManagedChannel channel, long second) {
    try {
      StatusResponse st = AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .status(StatusRequest.getDefaultInstance());
      String workers = st.getWorkersList().stream().filter(WorkerHealth::getAlive)
          .map(w -> "w" + w.getId() + ":" + w.getActors()).collect(Collectors.joining(" "));
      StringBuilder rows = new StringBuilder();
      for (String q : QUERIES) {
        long n = ViewServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
            .scan(ScanRequest.newBuilder().setView(q).setLimit(1).build()).getTotalRows();
        rows.append(' ').append(q).append('=').append(n);
      }
      out.printf("%3ds epoch %-5d barrier %5dms  recoveries %d  actors/worker [%s]  rows%s%s%n", second, st.getCommittedEpoch(),
          st.getBarrierLatencyMs(), st.getRecoveries(), workers, rows, optimizers(channel));
    } catch (StatusRuntimeException e) {
      out.printf("%3ds meta did not answer: %s%n", second, e.getStatus());
    }
    out.flush();
  }

  /**
   * The {@code default} optimizer group's instances, followed by a line for each keeper action not
   * printed yet; empty without the group.
   */
  private String optimizers(ManagedChannel channel) {
    try {
      dev.tide.proto.group.GroupView g = GroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .show(GroupRequest.newBuilder().setName("default").build());
      StringBuilder b = new StringBuilder("  optimizers " + g.getMetrics().getInstances());
      long printedUpTo = lastActionAtMs;
      for (KeeperActionView a : g.getRecentActionsList()) {
        if (a.getAtMs() > printedUpTo) {
          b.append(System.lineSeparator()).append(">> optimizer group: ").append(a.getReason());
          lastActionAtMs = Math.max(lastActionAtMs, a.getAtMs());
        }
      }
      return b.toString();
    } catch (StatusRuntimeException e) {
      return "";
    }
  }

  private void startCompute(int metaPort, List<String> common) {
    TideProcess.Started c = start("compute-" + children.size(), concat(List.of("compute", "--meta", "127.0.0.1:" + metaPort, "--slots",
        String.valueOf(settings.slotsPerNode())), common), TideProcess.COMPUTE_READY);
    out.printf("compute     pid %d, worker %s, port %s%n", c.process().process().pid(), c.ready().group(1), c.ready().group(2));
    out.flush();
  }

  private TideProcess.Started start(String name, List<String> args, java.util.regex.Pattern ready) {
    TideProcess.Started s = TideProcess.start(name, args, settings.dataDir().resolve(name + ".log"), ready, START_GUARD);
    children.add(s.process());
    return s;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
