package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.CreateJobRequest;
import dev.tide.proto.admin.JobServiceGrpc;
import dev.tide.proto.admin.StatusRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster with a token refuses every gRPC and HTTP call without it, or with a wrong one, with a
 * clear status, and changes nothing; servers refuse to bind a non-loopback address without a token.
 */
class ClusterSecurityTest {
  private static final ClusterToken TOKEN = ClusterToken.of("s3cret-token-0123456789");
  private static final ClusterToken WRONG = ClusterToken.of("not-the-token-0123456789");

  private static Config config(Path dir, Map<String, String> more) {
    Map<String, String> raw = new java.util.HashMap<>(Map.of("data-dir", dir.toString(), "meta.listen", "127.0.0.1:0",
        "meta.http-port", "0"));
    raw.putAll(more);
    return ProcessOptions.load(null, raw);
  }

  private static ManagedChannel channel(MetaServer server, Optional<ClusterToken> token) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext();
    token.ifPresent(t -> b.intercept(t.clientInterceptor()));
    return b.build();
  }

  @Test
  void grpcCallsWithoutOrWithAWrongTokenAreRefusedAndChangeNothing(@TempDir Path dir) {
    try (MetaServer server = MetaServer.start(config(dir, Map.of()), Optional.of(TOKEN), Clock.SYSTEM)) {
      for (Optional<ClusterToken> bad : java.util.List.of(Optional.<ClusterToken>empty(), Optional.of(WRONG))) {
        ManagedChannel ch = channel(server, bad);
        try {
          assertThatThrownBy(() -> JobServiceGrpc.newBlockingStub(ch).create(CreateJobRequest.newBuilder().setQuery("q0").build()))
              .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(e.getStatus().getDescription()).contains(bad.isEmpty() ? "requires a token" : "wrong cluster token")
                    .doesNotContain("s3cret");
              });
          assertThatThrownBy(() -> AdminServiceGrpc.newBlockingStub(ch).status(StatusRequest.getDefaultInstance()))
              .isInstanceOfSatisfying(StatusRuntimeException.class,
                  e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        } finally {
          ch.shutdownNow();
        }
      }
      assertThat(server.meta().jobs()).isEmpty();
      ManagedChannel ok = channel(server, Optional.of(TOKEN));
      try {
        assertThat(AdminServiceGrpc.newBlockingStub(ok).status(StatusRequest.getDefaultInstance()).getJobs()).isZero();
      } finally {
        ok.shutdownNow();
      }
    }
  }

  @Test
  void httpEndpointsRequireTheToken(@TempDir Path dir) throws Exception {
    try (MetaServer server = MetaServer.start(config(dir, Map.of()), Optional.of(TOKEN), Clock.SYSTEM)) {
      HttpClient http = HttpClient.newHttpClient();
      for (String path : new String[] {"/metrics", "/api/status"}) {
        URI uri = URI.create("http://127.0.0.1:" + server.httpPort() + path);
        HttpResponse<String> none = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(none.statusCode()).as(path).isEqualTo(401);
        assertThat(none.body()).contains("cluster token");
        HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(uri).header("Authorization", WRONG.header()).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(wrong.statusCode()).as(path).isEqualTo(401);
        HttpResponse<String> right = http.send(HttpRequest.newBuilder(uri).header("Authorization", TOKEN.header()).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(right.statusCode()).as(path).isEqualTo(200);
      }
      HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/api/status"))
          .header("Authorization", TOKEN.header()).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(status.body()).contains("\"store\"", "\"jobList\": []")
          .as("64-bit numbers print as JSON numbers, zeros included").containsPattern("\"committedEpoch\": \\d+,")
          .containsPattern("\"recoveries\": \\d+,").doesNotContainPattern("\"committedEpoch\": \"");
      HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics"))
          .header("Authorization", TOKEN.header()).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body()).contains("tide_committed_epoch", "tide_store_ssts", "tide_barrier_latency_seconds")
          .as("the percentiles docs/cluster.md names").containsPattern("\ntide_barrier_latency_p50_seconds \\S+\n")
          .containsPattern("\ntide_barrier_latency_p99_seconds \\S+\n");
    }
  }

  @Test
  void ctlReadsTheJsonStatusApiWithTheToken(@TempDir Path dir) {
    try (MetaServer server = MetaServer.start(config(dir, Map.of()), Optional.of(TOKEN), Clock.SYSTEM)) {
      String http = "127.0.0.1:" + server.httpPort();
      java.io.StringWriter out = new java.io.StringWriter();
      java.io.StringWriter err = new java.io.StringWriter();
      int ok = dev.tide.cli.TideCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err), "ctl", "status", "--http", http,
          "--json", "--token", "s3cret-token-0123456789");
      assertThat(ok).as(err.toString()).isZero();
      assertThat(out.toString()).contains("\"store\"");
      java.io.StringWriter err2 = new java.io.StringWriter();
      int refused = dev.tide.cli.TideCli.run(new java.io.PrintWriter(new java.io.StringWriter()), new java.io.PrintWriter(err2), "ctl",
          "status", "--http", http);
      assertThat(refused).isEqualTo(dev.tide.cli.TideCli.EXIT_FAILED);
      assertThat(err2.toString()).contains("HTTP 401").doesNotContain("\tat ");
    }
  }

  @Test
  void aComputeNodeWithAWrongTokenIsRefusedAtStart(@TempDir Path dir) {
    try (MetaServer server = MetaServer.start(config(dir, Map.of()), Optional.of(TOKEN), Clock.SYSTEM)) {
      Config compute = config(dir, Map.of("compute.meta", "127.0.0.1:" + server.grpcPort(), "compute.register-timeout", "10s"));
      assertThatThrownBy(() -> ComputeServer.start(compute, Optional.of(WRONG), Clock.SYSTEM))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("refused the registration").hasMessageContaining("wrong cluster token");
      assertThat(server.meta().workerHealth()).isEmpty();
    }
  }

  @Test
  void noTokenIsRefusedOffLoopback(@TempDir Path dir) {
    assertThatThrownBy(() -> MetaServer.start(config(dir, Map.of("meta.listen", "0.0.0.0:0")), Optional.empty(), Clock.SYSTEM))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not loopback").hasMessageContaining("TIDE_TOKEN");
  }

  @Test
  void tokensNeverPrintTheirSecret() {
    assertThat(TOKEN.toString()).doesNotContain("s3cret");
    assertThatThrownBy(() -> ClusterToken.of("short")).hasMessageContaining("at least 16");
  }
}
