package dev.tide.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tide.common.auth.ClusterToken;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's JSON endpoints on a real cluster with a token: refused without it (nothing
 * changes), and with it they show the cluster, the job's fragments and exchanges, the history, the
 * timeline and a view's pages; actions validate as {@code tide ctl} does.
 */
class DashboardApiTest {
  private static final ClusterToken TOKEN = ClusterToken.of("dash-token-0123456789abcdef");

  private static JsonObject json(HttpResponse<String> r) {
    return JsonParser.parseString(r.body()).getAsJsonObject();
  }

  @Test
  void endpointsShowTheClusterAndActionsValidateLikeCtl(@TempDir Path dir) throws Exception {
    try (DashboardCluster c = new DashboardCluster(dir, Optional.of(TOKEN))) {
      // Without the token: every page, asset and endpoint is refused, and an action changes nothing.
      for (String path : List.of("/", "/app.js", "/assets/echarts.min.js", "/api/dash/cluster", "/api/dash/jobs/q1",
          "/api/dash/history", "/api/dash/events", "/api/dash/views/q1")) {
        HttpResponse<String> r = c.get(path, false);
        assertThat(r.statusCode()).as(path).isEqualTo(401);
        assertThat(r.body()).as(path).contains("cluster token");
      }
      String intent = c.meta.meta().snapshot().jobs().get("q1").intent().render();
      assertThat(c.post("/api/dash/jobs/q1/scale", "{\"parallelism\":\"1\"}", false).statusCode()).isEqualTo(401);
      assertThat(c.post("/api/dash/workers/1/drain", "{}", false).statusCode()).isEqualTo(401);
      assertThat(c.meta.meta().snapshot().jobs().get("q1").intent().render()).isEqualTo(intent);
      assertThat(c.meta.meta().snapshot().jobs().get("q1").layout().actorsPerWorker()).hasSize(2);

      // Pages and assets come from the jar.
      assertThat(c.get("/", true).body()).contains("<title>Tide dashboard</title>");
      assertThat(c.get("/assets/uPlot.iife.min.js", true).body()).contains("uPlot");
      assertThat(c.get("/nope.html", true).statusCode()).isEqualTo(404);

      JsonObject cluster = json(c.get("/api/dash/cluster", true));
      JsonArray workers = cluster.getAsJsonObject("cluster").getAsJsonArray("workers");
      assertThat(workers).hasSize(2);
      assertThat(workers.get(0).getAsJsonObject().get("slots").getAsInt()).isEqualTo(2);
      assertThat(cluster.getAsJsonObject("status").getAsJsonArray("workers").get(0).getAsJsonObject().get("alive").getAsBoolean()).isTrue();
      assertThat(cluster.getAsJsonObject("cluster").getAsJsonArray("jobs").get(0).getAsJsonObject().get("name").getAsString()).isEqualTo("q1");

      JsonObject job = json(c.get("/api/dash/jobs/q1", true));
      JsonArray fragments = job.getAsJsonObject("fragments").getAsJsonArray("fragments");
      assertThat(fragments.size()).isGreaterThanOrEqualTo(2);
      assertThat(job.getAsJsonArray("edges").size()).isEqualTo(fragments.size() - 1);
      assertThat(job.getAsJsonObject("operators").get(fragments.get(0).getAsJsonObject().get("fragmentId").getAsString()).getAsString())
          .contains("source");
      assertThat(c.get("/api/dash/jobs/nope", true).body()).contains("unknown job 'nope'");

      await().atMost(Duration.ofMinutes(1)).until(() -> json(c.get("/api/dash/history", true)).getAsJsonArray("samples").size() >= 3);
      await().atMost(Duration.ofMinutes(1)).until(() -> StreamSupport.stream(json(c.get("/api/dash/history", true))
          .getAsJsonArray("samples").spliterator(), false).anyMatch(s -> s.getAsJsonObject().getAsJsonObject("rowsPerSec").has("q1")
              && s.getAsJsonObject().get("p99Ms").getAsLong() >= 0));

      // Bad input: refused with ctl's message, nothing changes.
      HttpResponse<String> bad = c.post("/api/dash/jobs/q1/scale", "{\"parallelism\":\"lots\"}", true);
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(json(bad).get("error").getAsString()).contains("scale of job 'q1' refused").contains("lots");
      assertThat(c.post("/api/dash/jobs/q1/scale", "not json", true).statusCode()).isEqualTo(400);
      HttpResponse<String> drain = c.post("/api/dash/workers/99/drain", "{}", true);
      assertThat(drain.statusCode()).isEqualTo(400);
      assertThat(json(drain).get("error").getAsString()).contains("worker 99").contains("unknown worker");
      // A dry run shows the diff and changes nothing.
      JsonObject dry = json(c.post("/api/dash/jobs/q1/scale", "{\"parallelism\":\"1\",\"dryRun\":true}", true));
      assertThat(dry.get("applied").getAsBoolean()).isFalse();
      assertThat(dry.get("diff").getAsString()).isNotBlank();
      assertThat(c.meta.meta().snapshot().jobs().get("q1").intent().render()).isEqualTo(intent);
      // The scale itself: the layout changes, the timeline and the placement show it.
      JsonObject done = json(c.post("/api/dash/jobs/q1/scale", "{\"parallelism\":\"1\"}", true));
      assertThat(done.get("applied").getAsBoolean()).isTrue();
      assertThat(c.meta.meta().snapshot().jobs().get("q1").intent().render()).isEqualTo("1");
      assertThat(json(c.get("/api/dash/events", true)).getAsJsonArray("events").toString()).contains("reschedule");
      await().atMost(Duration.ofMinutes(1)).until(() -> !json(c.get("/api/dash/placement/q1", true)).get("before").isJsonNull());

      assertThat(json(c.post("/api/dash/jobs/q1/pause", "{}", true)).get("changed").getAsBoolean()).isTrue();
      assertThat(json(c.post("/api/dash/jobs/q1/resume", "{}", true)).get("changed").getAsBoolean()).isTrue();
      assertThat(json(c.get("/api/dash/events", true)).getAsJsonArray("events").toString()).contains("\"pause\"").contains("\"resume\"");

      // A view's rows, paged.
      await().atMost(Duration.ofMinutes(1)).until(() -> json(c.get("/api/dash/views/q1?offset=0&limit=5", true))
          .getAsJsonObject("page").get("totalRows").getAsLong() >= 10);
      JsonObject page = json(c.get("/api/dash/views/q1?offset=5&limit=5", true));
      assertThat(page.getAsJsonObject("page").getAsJsonArray("rows")).hasSize(5);
      assertThat(page.getAsJsonObject("page").getAsJsonArray("columns").size()).isGreaterThan(0);
      assertThat(c.get("/api/dash/views/q1?offset=-1", true).statusCode()).isEqualTo(400);

      // Opening /?token= sets the cookie the browser sends from then on.
      HttpResponse<String> login = c.get("/?token=dash-token-0123456789abcdef", false);
      assertThat(login.statusCode()).isEqualTo(303);
      assertThat(login.headers().firstValue("Set-Cookie").orElseThrow()).contains("tide_token=").contains("HttpOnly");
      assertThat(c.get("/?token=wrong", false).statusCode()).isEqualTo(401);
    }
  }
}
