package dev.tide.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.cli.TideCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The playground runs its script (q5 and q7 handed to the autoscaler, q5's load stepping up and down) and serves the
 * admin API that {@code tide ctl} talks to. Whether the autoscaler acts in a 10 s run depends on the machine's speed;
 * {@code AutoscalerEndToEndTest} asserts the scaling itself.
 */
class PlaygroundScalingTest {
  private static final Pattern ADMIN = Pattern.compile("admin API on (127\\.0\\.0\\.1:[0-9]+) — try \\./tide ctl cluster --meta \\1\\n");

  @Test
  void playgroundRunsItsScriptAndAnswersCtl(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    // A thread of its own: on a small machine the common pool may have a single thread, which the cluster needs.
    CompletableFuture<Integer> playground = new CompletableFuture<>();
    Thread runner = new Thread(() -> {
      try {
        playground.complete(TideCli.run(new PrintWriter(out, true), new PrintWriter(err, true), "playground", "--duration", "10s",
            "--rate", "2000", "--barrier-interval", "200ms", "--nodes", "2", "--slots", "1", "--admin-port", "0",
            "--data-dir", dir.resolve("data").toString()));
      } catch (Throwable t) {
        playground.completeExceptionally(t);
      }
    }, "playground");
    runner.start();

    String address = await().atMost(Duration.ofMinutes(1)).until(() -> {
      Matcher m = ADMIN.matcher(out.toString());
      return m.find() ? m.group(1) : null;
    }, a -> a != null || playground.isDone());
    assertThat(address).as(out + "\n" + err).isNotNull();
    CtlCommandTest.Run added = CtlCommandTest.tide("ctl", "worker", "add", "--meta", address);
    // The admin API answers before the playground submits its jobs: wait until q5 shows.
    CtlCommandTest.Run shown = await().atMost(Duration.ofMinutes(1)).until(() -> CtlCommandTest.tide("ctl", "cluster", "--meta", address),
        r -> r.out().contains("q5") || playground.isDone());
    int code = playground.get(5, TimeUnit.MINUTES);

    assertThat(code).as(err.toString()).isZero();
    assertThat(added.exitCode()).as(added.err()).isZero();
    assertThat(added.out()).startsWith("worker 3 added with 1 slot;");
    assertThat(shown.out()).startsWith("workers: 3 (3 slots)\n").containsPattern("\\n +q5 +1 ");
    // 2,000 events/s per query for 10 s: q5's rate steps up to 100x at 20% of the run and back at 32%.
    assertThat(out.toString()).contains("Script: hand q7 to the autoscaler (1..4 actors per fragment) at 1s, then q5's load steps up to 200,000 events/s at 2s, "
        + "then q5's load steps back down to 2,000 events/s at 3s",
        "  more: ctl autoscale show q5 | pool show");
    assertThat(out.toString()).containsPattern(">> hand q5 to the autoscaler \\(1\\.\\.4 actors per fragment\\): intent adaptive;auto=1\\.\\.4");
    assertThat(out.toString()).containsPattern("  2s  >> q5's load steps up to 200,000 events/s\\n");
    assertThat(out.toString()).containsPattern(">> hand q7 to the autoscaler \\(1\\.\\.4 actors per fragment\\): intent adaptive;auto=1\\.\\.4");
    // The default optimizer group's registered instances show in every row.
    assertThat(out.toString()).contains("q7 rows  optimizers  opt tasks\n");
  }
}
