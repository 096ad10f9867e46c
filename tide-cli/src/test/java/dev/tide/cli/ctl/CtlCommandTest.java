package dev.tide.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.cli.TideCli;
import dev.tide.cluster.JobGrpcService;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.group.TableGrpcService;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.Worker;
import dev.tide.sql.NexmarkJobs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code tide ctl} end to end: a cluster of three nodes (two slots each) running q5 on a
 * rate-limited source, its admin API on a free loopback port, and every command run through the
 * {@code tide} entry point with its output, errors and exit code captured.
 *
 * <p>q5's fragments: 0 the source (with the counts' local phase), 1 the windowed count (hash by
 * auction and window), 2 the top counts per window (hash by window) with the view. The refusal to
 * scale one member of a NO_SHUFFLE ensemble is covered where the CLI's calls land
 * ({@code AdminGrpcServiceTest}, {@code LayoutPlannerTest}): no built-in query has an ensemble now.
 */
public class CtlCommandTest {
  /** Enough events at this rate that the job runs through the whole test. */
  static Map<String, String> options() {
    return Map.of("events", "10000000", "rate", "2000", "seed", "7", "event-time-rate", "1000", "splits", "8");
  }

  static Config config() {
    return Config.defaults().with(MetaOptions.BARRIER_INTERVAL, Duration.ofMillis(100))
        .with(MetaOptions.SETTLE_DELAY, Duration.ofMillis(200));
  }

  public record Run(int exitCode, String out, String err) {}

  @TempDir
  Path dir;
  private LocalCluster cluster;
  private AdminServer admin;

  @BeforeEach
  void start() {
    cluster = new LocalCluster(dir, config(), 3, 2);
    cluster.submit(NexmarkJobs.plan("q5", options()));
    admin = AdminServer.start(0, cluster.meta(), slots -> {
      synchronized (cluster) {
        return cluster.addNode(slots).compute().workerId();
      }
    }, new ViewGrpcService(cluster::meta, cluster.views()), new TableGrpcService(cluster.optimizing(), cluster.groups()),
        new JobGrpcService(cluster::meta, config()));
  }

  @Test
  void tableListShowsTheTablesAndUpdateSetsAQuotaOrRefusesClearly() {
    await().atMost(Duration.ofMinutes(1)).until(() -> !VersionDeltas.allSsts(cluster.meta().committedVersion()).isEmpty());
    long table = VersionDeltas.allSsts(cluster.meta().committedVersion()).get(0).getTableIds(0);
    Run list = ctl("table", "list");
    ok(list);
    String name = cluster.meta().jobs().get("q5").getTablesList().stream().filter(t -> t.getTableId() == table).findFirst()
        .orElseThrow().getName();
    assertThat(list.out()).startsWith("tables: ").containsPattern("\\n +table +job +name +group +quota +status +l0-files")
        .containsPattern("\\n +" + table + " +q5 +" + java.util.regex.Pattern.quote(name) + " +default +0\\.5 ");

    Run set = ctl("table", "update", String.valueOf(table), "--set", "self-optimizing.quota=3");
    ok(set);
    assertThat(set.out()).isEqualTo("table " + table + " updated: compacted by optimizer group default, quota 3 threads"
        + " {self-optimizing.quota=3}\n");
    assertThat(ctl("table", "list", "--group", "default").out()).containsPattern("\\n +" + table + " +q5 +\\S+ +default +3 ");

    Run notANumber = ctl("table", "update", String.valueOf(table), "--set", "self-optimizing.quota=lots");
    assertThat(notANumber.exitCode()).isEqualTo(1);
    assertThat(notANumber.err()).contains("update of table " + table + " refused: self-optimizing.quota 'lots' is not a number");
    Run noGroup = ctl("table", "update", String.valueOf(table), "--set", "self-optimizing.group=heavy");
    assertThat(noGroup.err()).contains("'heavy' names no optimizer group");
    Run noTable = ctl("table", "update", "987654", "--set", "self-optimizing.quota=2");
    assertThat(noTable.exitCode()).isEqualTo(1);
    assertThat(noTable.err()).contains("holds no table 987654");
    assertThat(cluster.optimizing().tableInfos()).filteredOn(t -> t.tableId() == table).singleElement()
        .satisfies(t -> assertThat(t.settings().quota()).isEqualTo(3)); // the refusals changed nothing
  }

  @Test
  void scanPrintsTheCommittedRowsOfAView() {
    await().until(() -> !cluster.scan("q5").isEmpty());
    Run r = ctl("scan", "q5", "--limit", "3");
    ok(r);
    assertThat(r.out()).startsWith("view q5: ").containsPattern("\\n +auction +num +starttime\\n")
        .as("timestamps in ISO-8601").containsPattern("\\n +\\d+ +\\d+ +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d(:\\d\\d)?(\\.\\d+)?Z\\n");
    Run unknown = ctl("scan", "nope");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("unknown materialized view 'nope'");
  }

  @Test
  void aJobCreatedWithADigestSinkHasItsDigestReadByName() {
    Run created = ctl("job", "create", "q1", "--digest", "--source", "events=1000");
    ok(created);
    assertThat(created.out()).contains("job 'q1'", "digests: q1");
    // Every bid of the first 1,000 events (46 of each 50) passes q1's projection.
    await().atMost(Duration.ofMinutes(1)).until(() -> cluster.digest("q1").rows() == 920);
    Run r = ctl("digest", "q1");
    ok(r);
    assertThat(r.out()).isEqualTo("digest q1: 920 rows, fingerprint " + cluster.digest("q1") + "\n");
    Run unknown = ctl("digest", "q5");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("unknown digest 'q5'; digests: [q1] (create one with: tide ctl job create QUERY --digest)");
  }

  @Test
  void aBoundedJobShowsFinishedOnceItsSourcesAreExhaustedAndCommitted() {
    ok(ctl("job", "create", "q0", "--name", "small", "--source", "events=2000", "--source", "splits=2"));
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
        .until(() -> ctl("job", "list").out().matches("(?s).*\\n +small +\\d+ +finished .*"));
    Run list = ctl("job", "list");
    ok(list);
    assertThat(list.out()).startsWith("jobs: 2\n").containsPattern("\n +job +id +state +intent +fragments +actors\n")
        .containsPattern("\n +q5 +\\d+ +running ");
    Run status = ctl("job", "status", "small");
    ok(status);
    assertThat(status.out()).startsWith("job 'small' (id ").contains("): finished;").contains("source bid: ")
        .containsPattern("source bid: (\\d+) of \\1 events committed");
    assertThat(ctl("job", "status", "q5").out()).contains("): running;").contains(" of 9200000 events committed"); // 46 of each 50 events are bids
    Run json = ctl("job", "list", "--json");
    ok(json);
    assertThat(json.out()).contains("\"name\": \"small\"", "\"state\": \"finished\"", "\"state\": \"running\"");
  }

  @Test
  void oneQueryRunsTwiceUnderTwoNamesAndADuplicateNameIsRefused() {
    Run a = ctl("job", "create", "q0", "--name", "a", "--source", "events=1000");
    ok(a);
    assertThat(a.out()).startsWith("job 'a' (id ").contains("views: a");
    Run b = ctl("job", "create", "q0", "--name", "b", "--source", "events=1000");
    ok(b);
    assertThat(b.out()).contains("views: b");
    await().atMost(Duration.ofMinutes(1)).until(() -> cluster.scan("a").size() == 920 && cluster.scan("b").size() == 920);

    Run again = ctl("job", "create", "q5");
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err().strip()).isEqualTo("error: create job 'q5' refused: a job named 'q5' already exists; drop it"
        + " ('tide ctl job drop q5') or name the new one ('tide ctl job create q5 --name NAME')");
    Run dup = ctl("job", "create", "q1", "--name", "a");
    assertThat(dup.err()).contains("create job 'a' (query q1) refused: a job named 'a' already exists");
    Run bad = ctl("job", "create", "q1", "--name", "no-dashes");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--name", "'no-dashes'", "letter followed by");
    assertThat(cluster.meta().jobs().keySet()).containsExactlyInAnyOrder("q5", "a", "b");
  }

  @Test
  void everyCommandPrintsJsonWithNumbersAsNumbers() {
    Run status = ctl("status", "--json");
    ok(status);
    assertThat(status.out()).startsWith("{\n").containsPattern("\"committedEpoch\": [0-9]+,")
        .containsPattern("\"recoveries\": 0,");
    Run cluster = ctl("cluster", "--json");
    ok(cluster);
    assertThat(cluster.out()).contains("\"workers\": [", "\"name\": \"q5\"", "\"slots\": 2");
    Run fragments = ctl("fragments", "q5", "--json");
    ok(fragments);
    assertThat(fragments.out()).contains("\"fragments\": [", "\"kind\": \"SOURCE\"");
    Run refused = ctl("fragments", "nope", "--json");
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.out()).isEmpty();
    assertThat(refused.err()).startsWith("error: ").contains("unknown job 'nope'");
  }

  @Test
  void aShellRunsManyCommandsInOneProcess() {
    String m = " --meta " + admin.address();
    java.io.InputStream stdin = System.in;
    System.setIn(new java.io.ByteArrayInputStream(("status" + m + "\n\n# a comment\ncluster --json" + m + "\nfragments nope" + m
        + "\njob list" + m + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    Run r;
    try {
      r = tide("ctl", "--shell");
    } finally {
      System.setIn(stdin);
    }
    assertThat(r.exitCode()).as("the failed command's exit code").isEqualTo(1);
    assertThat(r.out()).containsPattern("committed epoch +[0-9]+\\n").contains("\"workers\": [").contains("jobs: 1\n");
    assertThat(r.err().strip()).isEqualTo("error: unknown job 'nope'; jobs: [q5]");
  }

  @Test
  void theHttpPortGivenAsMetaIsNamedAndTheGrpcPortSuggested() throws IOException {
    com.sun.net.httpserver.HttpServer http = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    http.createContext("/", ex -> {
      ex.sendResponseHeaders(404, -1);
      ex.close();
    });
    http.start();
    try {
      Run r = tide("ctl", "status", "--meta", "127.0.0.1:" + http.getAddress().getPort());
      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.err().strip()).startsWith("error: 127.0.0.1:" + http.getAddress().getPort() + " answers HTTP, not gRPC")
          .contains("meta.http-port", "meta.listen, default 127.0.0.1:5690").doesNotContain("\n");
    } finally {
      http.stop(0);
    }
  }

  @AfterEach
  void stop() {
    if (admin != null) {
      admin.close();
    }
    cluster.close();
  }

  private Run ctl(String... args) {
    List<String> all = new ArrayList<>(List.of("ctl"));
    all.addAll(List.of(args));
    all.add("--meta");
    all.add(admin.address());
    return tide(all.toArray(String[]::new));
  }

  public static Run tide(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TideCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  private ClusterSnapshot.JobView q5() {
    return cluster.meta().snapshot().jobs().get("q5");
  }

  private void settled() {
    await().atMost(Duration.ofMinutes(1)).until(() -> !q5().rescheduling());
  }

  private static void ok(Run r) {
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
  }

  @Test
  void clusterShowsWorkersWithSlotsAndActorsAndTheJob() {
    Run r = ctl("cluster");

    ok(r);
    assertThat(r.out()).startsWith("workers: 3 (6 slots)\n");
    assertThat(r.out()).containsPattern("\\n +id +address +slots +actors +state\\n");
    for (int id = 1; id <= 3; id++) {
      int actors = q5().layout().actorsPerWorker().get(id);
      assertThat(r.out()).containsPattern("\\n +" + id + " +\\S+ +2 +" + actors + " +active\\n");
    }
    assertThat(r.out()).containsPattern("\\n +q5 +1 +adaptive +256 +3 +" + q5().layout().allActors().size() + " +running\\n");
  }

  @Test
  void fragmentsShowActorsWithWorkersAndVnodeRanges() {
    Run r = ctl("fragments", "q5");

    ok(r);
    assertThat(r.out()).startsWith("job 'q5' (id 1): intent adaptive, 256 vnodes, 3 fragments");
    assertThat(r.out()).contains("fragment 0: source, 8 splits, 6 actors", "fragment 1: hash, 256 vnodes, 6 actors, upstream 0",
        "fragment 2: hash, 256 vnodes, 6 actors, upstream 1");
    for (ActorPlacement a : q5().layout().actors(1)) {
      assertThat(r.out()).containsPattern("\\n +" + a.actorId() + " +" + a.workerId() + " +" + a.vnodes() + "\\n");
      assertThat(a.vnodes().toString()).matches("[0-9]+-[0-9]+");
    }
  }

  @Test
  void autoscaleHandsTheJobOverAndShowTellsWhatItSees() {
    Run on = ctl("autoscale", "q5", "--enable", "--min", "2", "--max", "8");
    ok(on);
    assertThat(on.out()).contains("job 'q5' is autoscaled: intent adaptive;auto=2..8");
    assertThat(q5().intent().autoscale()).isNotNull();
    Run show = ctl("autoscale", "q5");
    ok(show);
    assertThat(show.out()).startsWith("job 'q5': intent adaptive;auto=2..8, owned by the autoscaler").contains("no decisions yet");
    Run off = ctl("autoscale", "q5", "--disable");
    ok(off);
    assertThat(off.out()).contains("no longer autoscaled: intent adaptive");
    assertThat(q5().intent().autoscale()).isNull();
    assertThat(ctl("autoscale", "q5").out()).contains("not autoscaled (enable with tide ctl autoscale q5 --enable)");
  }

  @Test
  void fragmentsStatsShowEachFragmentsMeasuredLoad() {
    await().atMost(Duration.ofMinutes(1)).until(() -> ctl("fragments", "q5", "--stats").out().contains("load over"));
    Run r = ctl("fragments", "q5", "--stats");
    ok(r);
    assertThat(r.out()).containsPattern("fragment 0: source.*\\n +load over \\d+ s: [\\d,]+ rows/s in, [\\d,]+ out, busy \\d+%,"
        + " backpressure \\d+%, .*backlog [\\d,]+ rows");
    assertThat(r.out()).containsPattern("fragment 2: hash.*\\n +load over \\d+ s: ");
    assertThat(ctl("fragments", "q5").out()).doesNotContain("load over");
  }

  @Test
  void rescheduleDryRunPrintsTheDiffAndChangesNothing() {
    ClusterSnapshot.JobView before = q5();

    Run r = ctl("reschedule", "q5", "--plan", "1:[1:-1,2:+1]", "--dry-run");

    ok(r);
    assertThat(r.out()).contains("job 'q5' (id 1): 1 fragment changes, 1 actors added, 1 dropped",
        "fragment 1 (hash, 256 vnodes): 6 -> 6 actors", "+ actor", "on worker 2: vnodes", "- actor", "on worker 1: hands over vnodes",
        "dry run: nothing changed");
    assertThat(q5().layout()).isEqualTo(before.layout());
    assertThat(q5().intent()).isEqualTo(before.intent());
    assertThat(q5().rescheduling()).isFalse();
  }

  @Test
  void rescheduleMigratesAnActor() {
    int onOne = q5().layout().actorsPerWorker().get(1);

    Run r = ctl("reschedule", "q5", "--plan", "1:[1:-1,2:+1]");

    ok(r);
    assertThat(r.out()).contains("applied: 18 -> 18 actors");
    settled();
    assertThat(q5().layout().actorsPerWorker().get(1)).isEqualTo(onOne - 1);
  }

  @Test
  void scaleChangesTheActorCountAndTheIntent() {
    Run r = ctl("scale", "q5", "--parallelism", "2");

    ok(r);
    assertThat(r.out()).contains("applied: 18 -> 6 actors", "intent 2");
    settled();
    assertThat(q5().layout().allActors()).hasSize(6);
    assertThat(ctl("cluster").out()).containsPattern("\\n +q5 +1 +2 +256 +3 +6 +running\\n");

    Run back = ctl("scale", "q5", "--parallelism", "bounded(4)");
    ok(back);
    settled();
    assertThat(q5().layout().allActors()).hasSize(12);
    assertThat(q5().intent().render()).isEqualTo("bounded(4)");
  }

  @Test
  void scaleDryRunLeavesTheIntent() {
    ClusterSnapshot.JobView before = q5();

    Run r = ctl("scale", "q5", "--parallelism", "ratio(0.5)", "--dry-run");

    ok(r);
    assertThat(r.out()).contains("dry run: nothing changed (18 -> 9 actors");
    assertThat(q5().layout()).isEqualTo(before.layout());
    assertThat(q5().intent()).isEqualTo(before.intent());
  }

  @Test
  void pauseAndResume() {
    Run paused = ctl("pause", "q5");
    ok(paused);
    assertThat(paused.out()).isEqualTo("job 'q5' paused: its sources stop at the next barrier\n");
    assertThat(q5().paused()).isTrue();
    assertThat(ctl("cluster").out()).containsPattern("\\n +q5 .* paused\\n");
    assertThat(ctl("pause", "q5").out()).contains("already paused");

    Run resumed = ctl("resume", "q5");
    ok(resumed);
    assertThat(resumed.out()).contains("job 'q5' resumed");
    assertThat(q5().paused()).isFalse();
  }

  @Test
  void workerAddStartsANodeTheAdaptiveJobSpreadsOnto() {
    Run r = ctl("worker", "add", "--slots", "1");

    ok(r);
    assertThat(r.out()).startsWith("worker 4 added with 1 slot;");
    assertThat(cluster.meta().workers()).extracting(Worker::id).containsExactly(1, 2, 3, 4);
    await().atMost(Duration.ofMinutes(1)).until(() -> q5().layout().actorsPerWorker().getOrDefault(4, 0) > 0 && !q5().rescheduling());
    assertThat(ctl("cluster").out()).startsWith("workers: 4 (7 slots)\n");
  }

  @Test
  void workerDrainMovesTheActorsOffAndRemovesTheWorker() {
    Run r = ctl("worker", "drain", "3");

    ok(r);
    assertThat(r.out()).startsWith("worker 3 draining: its 6 actors migrate");
    await().atMost(Duration.ofMinutes(1)).until(() -> cluster.meta().workers().stream().noneMatch(w -> w.id() == 3));
    assertThat(q5().layout().actorsPerWorker()).doesNotContainKey(3);
    assertThat(ctl("cluster").out()).startsWith("workers: 2 (4 slots)\n");
  }

  @Test
  void statusShowsTheBarrierPipeline() {
    Run r = ctl("status");

    ok(r);
    assertThat(r.out()).containsPattern("committed epoch +[0-9]+\\n").contains("barrier latency", "recoveries");
  }

  /** Bad input: exit 1, one line naming the problem, and the job's layout, intent and workers unchanged. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "fragments nope                              | unknown job 'nope'",
      "scale nope --parallelism 2                  | unknown job 'nope'",
      "pause nope                                  | unknown job 'nope'",
      "reschedule q5 --plan 9:[1:+1]               | fragment 9 is not a fragment of job 'q5'",
      "reschedule q5 --plan 1:[9:+1]               | worker 9 is unknown",
      "reschedule q5 --plan 1:[1:-5]               | removes 5 actors from worker 1",
      "reschedule q5 --plan 1:[1:+]                | is malformed",
      "reschedule q5 --plan 1:[1:+1]];             | is malformed",
      "scale q5 --fragment 7 --parallelism 2       | fragment 7 is not a fragment",
      "scale q5 --parallelism 0                    | parallelism '0' is not valid",
      "scale q5 --parallelism 257                  | parallelism 257 exceeds the job's vnode count 256",
      "scale q5 --parallelism bounded(0)           | parallelism 'bounded(0)' is not valid",
      "scale q5 --parallelism many                 | parallelism 'many' is not valid",
      "worker drain 9                              | unknown worker",
      "autoscale nope --enable                     | unknown job 'nope'",
      "autoscale q5 --enable --min 5 --max 2       | min 5 is above max 2",
      "autoscale q5 --enable --max 300             | max 300 exceeds the job's vnode count 256",
      "autoscale nope                              | unknown job 'nope'",
  })
  void badInputExitsWithOneAndChangesNothing(String args, String named) {
    ClusterSnapshot before = cluster.meta().snapshot();

    Run r = ctl(args.trim().split(" +"));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: ").contains(named).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.out()).isEmpty();
    ClusterSnapshot after = cluster.meta().snapshot();
    assertThat(after.jobs().get("q5").layout()).isEqualTo(before.jobs().get("q5").layout());
    assertThat(after.jobs().get("q5").intent()).isEqualTo(before.jobs().get("q5").intent());
    assertThat(after.jobs().get("q5").rescheduling()).isFalse();
    assertThat(after.workers()).isEqualTo(before.workers());
    assertThat(after.draining()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "ctl                                         | needs a subcommand",
      "ctl frobnicate                              | frobnicate",
      "ctl worker                                  | needs a subcommand",
      "ctl scale q5                                | --parallelism",
      "ctl reschedule q5                           | --plan",
      "ctl fragments                               | JOB",
      "ctl cluster --meta localhost                | --meta",
      "ctl cluster --meta localhost:99999          | --meta",
      "ctl cluster --meta ::1:5690                 | --meta",
      "ctl worker add --slots 0                    | --slots",
      "ctl worker drain two                        | ID",
      "ctl scale q5 --parallelism 2 --fragment -1  | --fragment",
            "ctl autoscale q5 --enable --disable         | mutually exclusive",
      "ctl autoscale q5 --disable --min 2          | go with --enable",
      "ctl autoscale q5 --enable --target-utilization 1.5 | --target-utilization 1.5 must be above 0 and at most 1",
      "ctl autoscale q5 --enable --min 0           | --min and --max must be at least 1",
  })
  void badFlagsExitWithTwo(String args, String named) {
    Run r = tide(args.trim().split(" +"));

    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: ").contains(named).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void anUnreachableMetaIsOneLineAndExitOne() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }

    Run r = tide("ctl", "status", "--meta", "127.0.0.1:" + port);

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err().strip()).startsWith("error: cannot reach meta at 127.0.0.1:" + port + ": ").doesNotContain("\n");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void theAdminServerListensOnLoopbackAndRefusesATakenPortClearly() throws IOException {
    assertThat(admin.address()).isEqualTo("127.0.0.1:" + admin.port());
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> AdminServer.start(port, cluster.meta(), null)))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot listen on 127.0.0.1:" + port)
          .hasMessageContaining("--admin-port");
    }
  }
}
