package dev.tide.cli.ctl;

import com.google.protobuf.util.JsonFormat;
import dev.tide.cluster.Endpoint;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.StatusResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code tide ctl status}: the barrier pipeline, from the admin API or from meta's JSON status API. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Shows the committed epoch, barrier latency, in-flight barriers, workers, jobs and recoveries.")
final class StatusCommand extends AdminCommand {
  @Option(names = "--http", paramLabel = "HOST:PORT",
      description = "Reads meta's JSON status API (GET /api/status) at this address instead of the gRPC admin API.")
  String http;

  @Override
  void run(AdminClient client, PrintWriter out) {
    StatusResponse status;
    if (http == null) {
      status = client.admin().status(StatusRequest.getDefaultInstance());
    } else {
      status = fetch();
      responses.add(status);
    }
    CtlText.status(status).forEach(out::println);
  }

  private StatusResponse fetch() {
    Endpoint at;
    try {
      at = Endpoint.parse(http, "127.0.0.1:5691");
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--http: " + e.getMessage());
    }
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://" + at + "/api/status")).timeout(AdminClient.CALL_TIMEOUT);
    clusterToken.ifPresent(t -> req.header("Authorization", t.header()));
    try {
      HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
          .send(req.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("meta's status API at " + at + " answered HTTP " + r.statusCode() + ": " + r.body());
      }
      StatusResponse.Builder b = StatusResponse.newBuilder();
      JsonFormat.parser().merge(r.body(), b);
      return b.build();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read meta's status API at " + at + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading meta's status API", e);
    }
  }
}
