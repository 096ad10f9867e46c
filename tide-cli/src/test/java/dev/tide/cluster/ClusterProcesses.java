package dev.tide.cluster;

import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.JobServiceGrpc;
import dev.tide.proto.admin.ScanRequest;
import dev.tide.proto.admin.ScanRow;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.ViewServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Tide processes started by a test: {@code tide meta} and {@code tide compute} as child JVMs on
 * loopback, with the test's classpath, each logging to a file under the test's directory. Kills
 * what is left on close.
 */
final class ClusterProcesses implements AutoCloseable {
  /** Guard for a child JVM to come up on a loaded 2-core machine; not a speed expectation. */
  private static final Duration START_GUARD = Duration.ofMinutes(2);

  private final Path dir;
  private final List<String> common;
  private final List<TideProcess> children = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  final int metaPort;

  /** Processes sharing {@code dir} (meta store file, object store) and the {@code --set} options in {@code common}. */
  ClusterProcesses(Path dir, List<String> common) {
    this.dir = dir;
    this.common = common;
    this.metaPort = freePort();
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts {@code tide meta} on {@link #metaPort} with {@code extra} arguments; returns once it serves. */
  TideProcess startMeta(String... extra) {
    List<String> args = new ArrayList<>(List.of("meta", "--data-dir", dir.toString(), "--listen", "127.0.0.1:" + metaPort,
        "--http-port", "0"));
    args.addAll(common);
    args.addAll(List.of(extra));
    return start("meta", args, TideProcess.META_READY);
  }

  /** Starts {@code tide compute} registering with this cluster's meta; returns once registered. */
  TideProcess startCompute(int slots, String... extra) {
    return startCompute(dir, slots, extra);
  }

  /** Starts {@code tide compute} on data directory {@code dataDir} (its object store); see {@link #startCompute(int, String...)}. */
  TideProcess startCompute(Path dataDir, int slots, String... extra) {
    List<String> args = new ArrayList<>(List.of("compute", "--data-dir", dataDir.toString(), "--meta", "127.0.0.1:" + metaPort,
        "--slots", String.valueOf(slots)));
    args.addAll(common);
    args.addAll(List.of(extra));
    return start("compute", args, TideProcess.COMPUTE_READY);
  }

  private TideProcess start(String kind, List<String> args, Pattern ready) {
    String name = kind + "-" + (children.size() + 1);
    TideProcess c = TideProcess.start(name, args, dir.resolve(name + ".log"), ready, START_GUARD).process();
    children.add(c);
    return c;
  }

  private ManagedChannel channel() {
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", metaPort).usePlaintext().build();
    channels.add(ch);
    return ch;
  }

  JobServiceGrpc.JobServiceBlockingStub jobs() {
    return JobServiceGrpc.newBlockingStub(channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  dev.tide.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub admin() {
    return AdminServiceGrpc.newBlockingStub(channel()).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  dev.tide.proto.group.PoolView pool() {
    return dev.tide.proto.group.PoolServiceGrpc.newBlockingStub(channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
        .show(dev.tide.proto.group.PoolRequest.getDefaultInstance());
  }

  StatusResponse status() {
    return AdminServiceGrpc.newBlockingStub(channel()).withDeadlineAfter(30, TimeUnit.SECONDS).status(StatusRequest.getDefaultInstance());
  }

  /** The committed rows of a view as strings, sorted. */
  List<List<String>> scan(String view) {
    List<List<String>> rows = new ArrayList<>();
    for (ScanRow r : ViewServiceGrpc.newBlockingStub(channel()).withDeadlineAfter(60, TimeUnit.SECONDS)
        .scan(ScanRequest.newBuilder().setView(view).build()).getRowsList()) {
      rows.add(r.getValuesList());
    }
    rows.sort(ClusterProcesses::compareRows);
    return rows;
  }

  /** Reference rows in the form {@link #scan} returns them. */
  static List<List<String>> asText(List<List<Object>> rows) {
    List<List<String>> out = new ArrayList<>();
    for (List<Object> r : rows) {
      out.add(r.stream().map(String::valueOf).toList());
    }
    out.sort(ClusterProcesses::compareRows);
    return out;
  }

  private static int compareRows(List<String> a, List<String> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  /** The logs of every child, for a failure message. */
  String logs() {
    StringBuilder b = new StringBuilder();
    for (TideProcess c : children) {
      String out = c.output();
      b.append("---- ").append(c.name()).append(" (last 12000 chars)\n").append(out, Math.max(0, out.length() - 12000), out.length());
    }
    return b.toString();
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
    children.forEach(TideProcess::kill);
  }
}
