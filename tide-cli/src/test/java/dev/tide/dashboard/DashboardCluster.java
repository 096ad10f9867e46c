package dev.tide.dashboard;

import dev.tide.cluster.ComputeServer;
import dev.tide.cluster.JobGrpcService;
import dev.tide.cluster.MetaServer;
import dev.tide.cluster.OptimizerGroups;
import dev.tide.cluster.ProcessOptions;
import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.MetaOptions;
import dev.tide.sql.NexmarkJobs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A real cluster for the dashboard's tests: meta (gRPC and HTTP on loopback) and two compute nodes of 2 slots running q1. */
final class DashboardCluster implements AutoCloseable {
  final MetaServer meta;
  final List<ComputeServer> computes = new ArrayList<>();
  final Optional<ClusterToken> token;
  private final HttpClient http = HttpClient.newHttpClient();

  DashboardCluster(Path dir, Optional<ClusterToken> token) {
    this.token = token;
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(200))
        .with(ProcessOptions.DATA_DIR, dir.toString()).with(ProcessOptions.OBJECT_STORE_DIR, dir.resolve("objects").toString())
        .with(ProcessOptions.META_LISTEN, "127.0.0.1:0").with(ProcessOptions.META_HTTP_PORT, 0)
        .with(OptimizerGroups.CREATE_DEFAULT_GROUP, false).with(ProcessOptions.COMPUTE_SLOTS, 2);
    meta = MetaServer.start(config, token, Clock.SYSTEM);
    try {
      for (int i = 0; i < 2; i++) {
        computes.add(ComputeServer.start(config.with(ProcessOptions.COMPUTE_META, "127.0.0.1:" + meta.grpcPort())
            .with(ProcessOptions.DATA_DIR, dir.resolve("compute-" + i).toString()), token, Clock.SYSTEM));
      }
      JobGrpcService.submit(meta.meta(), config, NexmarkJobs.plan("q1",
          Map.of("rate", "500", "seed", "7", "splits", "4", "events", "100000000")));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  String base() {
    return "http://127.0.0.1:" + meta.httpPort();
  }

  HttpResponse<String> get(String path, boolean withToken) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path));
    if (withToken) {
      token.ifPresent(t -> b.header("Authorization", t.header()));
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String json, boolean withToken) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json));
    if (withToken) {
      token.ifPresent(t -> b.header("Authorization", t.header()));
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    for (ComputeServer c : computes) {
      c.close();
    }
    meta.close();
  }
}
