package dev.tide.meta.store;

import static dev.tide.meta.store.Fixtures.job;
import static dev.tide.meta.store.Fixtures.layout;
import static dev.tide.meta.store.Fixtures.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link MetaStore} on JDBC must show, run against each database by a subclass
 * that supplies fresh empty stores.
 */
abstract class MetaStoreContract {
  /** A URL of a new, empty store (a new file or database) for each call. */
  protected abstract String newStoreUrl() throws Exception;

  private final List<MetaStore> opened = new ArrayList<>();
  protected String url;

  @BeforeEach
  void freshStore() throws Exception {
    url = newStoreUrl();
  }

  @AfterEach
  void closeStores() {
    opened.forEach(MetaStore::close);
  }

  protected JdbcMetaStore open() {
    return open(Schema.MIGRATIONS);
  }

  protected JdbcMetaStore open(List<Migration> migrations) {
    JdbcMetaStore s = JdbcMetaStore.open(url, new Properties(), migrations);
    opened.add(s);
    return s;
  }

  /** Closes {@code store} and opens the same store again, as a restarted meta would. */
  protected JdbcMetaStore reopen(MetaStore store) {
    store.close();
    return open();
  }

  protected void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  protected List<Integer> appliedSchemaVersions() throws SQLException {
    List<Integer> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
      while (rs.next()) {
        out.add(rs.getInt(1));
      }
    }
    return out;
  }

  private static JobRecord record(int jobId, String name, String intent, int parallelism, long firstActor, boolean paused) {
    JobDefinition def = job(jobId, name);
    return new JobRecord(def, JobIntent.parse(intent), layout(def, parallelism, firstActor), paused);
  }

  // ---------------------------------------------------------------- schema

  @Test
  void newStoreIsMigratedFromEmptyAndHoldsNothing() throws SQLException {
    JdbcMetaStore store = open();
    assertThat(store.schemaVersion()).isEqualTo(Schema.LATEST);
    MetaSnapshot s = store.load();
    assertThat(s.jobs()).isEmpty();
    assertThat(s.workers()).isEmpty();
    assertThat(s.optimizerGroups()).isEmpty();
    assertThat(s.version()).isEqualTo(VersionDeltas.empty());
    assertThat(s.counters()).isEqualTo(Counters.INITIAL);
    List<Integer> expected = new ArrayList<>();
    for (int v = 1; v <= Schema.LATEST; v++) {
      expected.add(v);
    }
    assertThat(appliedSchemaVersions()).isEqualTo(expected);
  }

  @Test
  void reopeningAMigratedStoreAppliesNothingAgain() throws SQLException {
    JdbcMetaStore store = open();
    store.putOptimizerGroup("default", "min=1");
    store = reopen(store);
    assertThat(store.schemaVersion()).isEqualTo(Schema.LATEST);
    assertThat(store.load().optimizerGroups()).containsEntry("default", "min=1");
    assertThat(appliedSchemaVersions()).hasSize(Schema.LATEST);
  }

  @Test
  void olderStoreIsMigratedAndKeepsItsData() throws SQLException {
    JdbcMetaStore store = open();
    JobRecord j = record(1, "q1", "adaptive", 2, 1, false);
    store.putJob(j);
    List<Migration> newer = new ArrayList<>(Schema.MIGRATIONS);
    newer.add(new Migration(Schema.LATEST + 1, "test: a note per optimizer group", List.of(
        "ALTER TABLE optimizer_groups ADD COLUMN note TEXT")));
    store.close();
    JdbcMetaStore upgraded = open(newer);
    assertThat(upgraded.schemaVersion()).isEqualTo(Schema.LATEST + 1);
    assertThat(upgraded.load().jobs()).containsEntry(1, j);
    assertThat(appliedSchemaVersions()).endsWith(Schema.LATEST, Schema.LATEST + 1);
  }

  @Test
  void storeOfANewerSchemaIsRefusedNamingBothVersions() {
    List<Migration> newer = new ArrayList<>(Schema.MIGRATIONS);
    newer.add(new Migration(Schema.LATEST + 1, "test: from the future", List.of("CREATE TABLE future_things (id INTEGER)")));
    open(newer).close();
    assertThatThrownBy(this::open)
        .isInstanceOf(MetaStoreException.class)
        .hasMessageContaining("schema version is " + (Schema.LATEST + 1))
        .hasMessageContaining("newer than " + Schema.LATEST + ", the newest this Tide supports");
  }

  @Test
  void failingMigrationLeavesTheStoreAtItsVersion() throws SQLException {
    open().close();
    List<Migration> broken = new ArrayList<>(Schema.MIGRATIONS);
    broken.add(new Migration(Schema.LATEST + 1, "test: broken", List.of(
        "CREATE TABLE half_done (id INTEGER)",
        "CREATE TABLE (")));
    assertThatThrownBy(() -> open(broken))
        .isInstanceOf(MetaStoreException.class)
        .hasMessageContaining("to schema version " + (Schema.LATEST + 1) + " (test: broken) failed at 'CREATE TABLE ('")
        .hasMessageContaining("stays at schema version " + Schema.LATEST);
    JdbcMetaStore store = open();
    assertThat(store.schemaVersion()).isEqualTo(Schema.LATEST);
    assertThat(appliedSchemaVersions()).hasSize(Schema.LATEST);
    execute("CREATE TABLE half_done (id INTEGER)"); // the first statement of the failed migration was rolled back
  }

  @Test
  void databaseOfSomethingElseIsRefused() throws SQLException {
    execute("CREATE TABLE orders (id INTEGER)");
    assertThatThrownBy(this::open)
        .isInstanceOf(MetaStoreException.class)
        .hasMessageContaining("is not a Tide meta store")
        .hasMessageContaining("[orders]");
  }

  // ---------------------------------------------------------------- jobs

  @Test
  void jobsRoundTripAndSurviveReopen() {
    JdbcMetaStore store = open();
    JobRecord a = record(1, "q1", "adaptive;1=bounded(2)", 3, 1, false);
    JobRecord b = record(2, "q2", "4", 4, 100, true);
    store.putJob(a);
    store.putJob(b);
    assertThat(store.load().jobs()).isEqualTo(Map.of(1, a, 2, b));
    assertThat(reopen(store).load().jobs()).isEqualTo(Map.of(1, a, 2, b));
  }

  @Test
  void putJobReplacesTheJobOfTheSameId() {
    JdbcMetaStore store = open();
    store.putJob(record(1, "q1", "adaptive", 2, 1, false));
    JobRecord replaced = record(1, "q1", "ratio(0.5)", 1, 50, true);
    store.putJob(replaced);
    assertThat(reopen(store).load().jobs()).isEqualTo(Map.of(1, replaced));
  }

  @Test
  void aSecondJobOfTheSameNameIsRefusedAndChangesNothing() {
    JdbcMetaStore store = open();
    JobRecord a = record(1, "q1", "adaptive", 2, 1, false);
    store.putJob(a);
    assertThatThrownBy(() -> store.putJob(record(2, "q1", "adaptive", 2, 10, false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("put of job 2 'q1' refused: job 1 already has that name; drop it first");
    assertThat(store.load().jobs()).isEqualTo(Map.of(1, a));
  }

  @Test
  void deleteAndPause() {
    JdbcMetaStore store = open();
    JobRecord a = record(1, "q1", "adaptive", 2, 1, false);
    JobRecord b = record(2, "q2", "adaptive", 2, 10, false);
    store.putJob(a);
    store.putJob(b);
    store.setPaused(2, true);
    assertThat(store.deleteJob(1)).isTrue();
    assertThat(store.deleteJob(1)).isFalse();
    assertThatThrownBy(() -> store.setPaused(1, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pause of job 1 refused: the meta store holds no job 1");
    assertThat(reopen(store).load().jobs()).isEqualTo(Map.of(2, new JobRecord(b.definition(), b.intent(), b.layout(), true)));
  }

  // ---------------------------------------------------------------- versions, layouts, counters

  @Test
  void committedVersionAndCountersSurviveReopen() {
    JdbcMetaStore store = open();
    store.commitVersion(version(1, 1), new Counters(3, 40, 2, 500));
    store.commitVersion(version(2, 2), Counters.NONE);
    MetaSnapshot s = reopen(store).load();
    assertThat(s.version()).isEqualTo(version(2, 2));
    assertThat(s.counters()).isEqualTo(new Counters(3, 40, 2, 500));
  }

  @Test
  void obsoleteSstsAreRecordedWithTheirCompactionAndSurviveReopenUntilForgotten() {
    JdbcMetaStore store = open();
    StoreVersion before = version(1, 3);
    store.commitVersion(before, Counters.NONE);
    List<SstInfo> dropped = before.getL0().getSstsList().subList(0, 2);
    StoreVersion after = before.toBuilder().setId(2).setL0(before.getL0().toBuilder().clearSsts()
        .addSsts(before.getL0().getSsts(2))).build();
    store.commitCompaction(after, dropped, new Counters(0, 0, 0, 900));

    JdbcMetaStore reopened = reopen(store);
    assertThat(reopened.load().version()).isEqualTo(after);
    assertThat(reopened.load().counters().nextSstId()).isEqualTo(900);
    assertThat(reopened.obsoleteSsts()).containsExactlyInAnyOrder(
        new ObsoleteSstRecord(dropped.get(0), 2), new ObsoleteSstRecord(dropped.get(1), 2));
    reopened.forgetObsoleteSsts(List.of(dropped.get(0).getId(), 999L)); // an unknown id is ignored
    assertThat(reopen(reopened).obsoleteSsts()).containsExactly(new ObsoleteSstRecord(dropped.get(1), 2));
  }

  @Test
  void tablePropertiesAreReplacedRemovedAndSurviveReopen() {
    JdbcMetaStore store = open();
    store.putTableProperties(1001, "self-optimizing.quota=2\n");
    store.putTableProperties(1001, "self-optimizing.group=big\nself-optimizing.quota=3\n");
    store.putTableProperties(1002, "self-optimizing.quota=0.25\n");
    store.putTableProperties(1003, "self-optimizing.quota=4\n");
    store.putTableProperties(1003, ""); // back to the defaults: no row
    assertThat(reopen(store).tableProperties()).containsExactly(
        Map.entry(1001L, "self-optimizing.group=big\nself-optimizing.quota=3\n"), Map.entry(1002L, "self-optimizing.quota=0.25\n"));
  }

  @Test
  void aRefusedCompactionRecordsNoObsoleteSst() {
    JdbcMetaStore store = open();
    store.commitVersion(version(3, 3), Counters.NONE);
    assertThatThrownBy(() -> store.commitCompaction(version(2, 3), version(3, 3).getL0().getSstsList(), Counters.NONE))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("a committed version never goes back");
    assertThat(store.obsoleteSsts()).isEmpty();
  }

  @Test
  void countersAreNeverLowered() {
    JdbcMetaStore store = open();
    store.commitVersion(version(1, 1), new Counters(5, 50, 5, 50));
    store.commitVersion(version(2, 2), new Counters(4, 60, 1, 0));
    assertThat(store.load().counters()).isEqualTo(new Counters(5, 60, 5, 50));
  }

  @Test
  void anOlderVersionIsRefusedAndChangesNothing() {
    JdbcMetaStore store = open();
    store.commitVersion(version(3, 5), Counters.NONE);
    assertThatThrownBy(() -> store.commitVersion(version(2, 6), new Counters(9, 9, 9, 9)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("commit of version 2 (epoch 6) refused: the meta store already holds version 3 (epoch 5);"
            + " a committed version never goes back");
    assertThatThrownBy(() -> store.commitVersion(version(4, 4), Counters.NONE))
        .isInstanceOf(IllegalStateException.class);
    MetaSnapshot s = store.load();
    assertThat(s.version()).isEqualTo(version(3, 5));
    assertThat(s.counters()).isEqualTo(Counters.INITIAL);
    store.commitVersion(version(3, 5), Counters.NONE); // the same version again is accepted
  }

  @Test
  void rescheduledLayoutIsCommittedWithItsVersion() {
    JdbcMetaStore store = open();
    JobRecord a = record(1, "q1", "2", 2, 1, false);
    JobRecord b = record(2, "q2", "adaptive", 2, 10, true);
    store.putJob(a);
    store.putJob(b);
    store.commitVersion(version(1, 1), Counters.NONE);
    JobLayout scaled = layout(a.definition(), 4, 20);
    store.commitVersion(version(2, 2), List.of(new LayoutUpdate(1, JobIntent.fixed(4), scaled)), new Counters(0, 30, 0, 0));
    MetaSnapshot s = reopen(store).load();
    assertThat(s.version()).isEqualTo(version(2, 2));
    assertThat(s.jobs().get(1)).isEqualTo(new JobRecord(a.definition(), JobIntent.fixed(4), scaled, false));
    assertThat(s.jobs().get(2)).isEqualTo(b);
    assertThat(s.counters().nextActorId()).isEqualTo(30);
  }

  @Test
  void aFailingStepOfARescheduleCommitLeavesTheOldState() {
    JdbcMetaStore store = open();
    JobRecord a = record(1, "q1", "2", 2, 1, false);
    store.putJob(a);
    store.commitVersion(version(1, 1), new Counters(2, 10, 3, 200));
    MetaSnapshot before = store.load();
    // The version and job 1's layout are written before the update of job 9 fails: all must roll back.
    List<LayoutUpdate> updates = List.of(
        new LayoutUpdate(1, JobIntent.fixed(4), layout(a.definition(), 4, 20)),
        new LayoutUpdate(9, JobIntent.fixed(1), layout(job(9, "gone"), 1, 40)));
    assertThatThrownBy(() -> store.commitVersion(version(2, 2), updates, new Counters(3, 50, 4, 300)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("commit of version 2 (epoch 2) refused: it carries a layout for job 9, which the meta store does not hold");
    assertThat(store.load()).isEqualTo(before);
    assertThat(reopen(store).load()).isEqualTo(before);
  }

  @Test
  void allocatedRangesAreDisjointAndDurable() {
    JdbcMetaStore store = open();
    assertThat(store.allocate(IdKind.SST, 10)).isEqualTo(1);
    assertThat(store.allocate(IdKind.SST, 5)).isEqualTo(11);
    assertThat(store.allocate(IdKind.ACTOR, 100)).isEqualTo(1);
    assertThat(store.allocate(IdKind.JOB, 1)).isEqualTo(1);
    assertThat(store.allocate(IdKind.WORKER, 1)).isEqualTo(1);
    store = reopen(store);
    assertThat(store.load().counters()).isEqualTo(new Counters(2, 101, 2, 16));
    assertThat(store.allocate(IdKind.SST, 1)).isEqualTo(16);
    assertThat(store.allocate(IdKind.JOB, 2)).isEqualTo(2);
    assertThat(store.allocate(IdKind.JOB, 1)).isEqualTo(4);
    JdbcMetaStore s = store;
    assertThatThrownBy(() -> s.allocate(IdKind.ACTOR, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("allocation of 0 actor ids refused: expected a count >= 1");
  }

  @Test
  void allocationAfterACommitStartsAboveTheFloor() {
    JdbcMetaStore store = open();
    store.commitVersion(version(1, 1), new Counters(0, 500, 0, 0));
    assertThat(store.allocate(IdKind.ACTOR, 3)).isEqualTo(500);
    store.commitVersion(version(2, 2), new Counters(0, 400, 0, 0));
    assertThat(store.allocate(IdKind.ACTOR, 1)).isEqualTo(503);
  }

  @Test
  void exhaustedJobIdsAreRefused() {
    JdbcMetaStore store = open();
    store.commitVersion(version(1, 1), new Counters(Integer.MAX_VALUE, 0, 0, 0));
    assertThat(store.allocate(IdKind.JOB, 1)).isEqualTo(Integer.MAX_VALUE);
    assertThatThrownBy(() -> store.allocate(IdKind.JOB, 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("job ids are exhausted");
    assertThat(store.load().counters().nextJobId()).isEqualTo(Integer.MAX_VALUE + 1L);
  }

  // ---------------------------------------------------------------- workers and optimizer groups

  @Test
  void workersRoundTrip() {
    JdbcMetaStore store = open();
    store.putWorker(new WorkerRecord(new Worker(1, "10.0.0.1:7001", 4), false));
    store.putWorker(new WorkerRecord(new Worker(2, "10.0.0.2:7001", 2), false));
    store.putWorker(new WorkerRecord(new Worker(3, "10.0.0.3:7001", 8), false));
    store.putWorker(new WorkerRecord(new Worker(2, "10.0.0.2:7001", 2), true, "compute-17-0"));
    assertThat(store.deleteWorker(3)).isTrue();
    assertThat(store.deleteWorker(3)).isFalse();
    assertThat(reopen(store).load().workers()).isEqualTo(Map.of(
        1, new WorkerRecord(new Worker(1, "10.0.0.1:7001", 4), false),
        2, new WorkerRecord(new Worker(2, "10.0.0.2:7001", 2), true, "compute-17-0")));
  }

  @Test
  void poolResourcesRoundTrip() {
    JdbcMetaStore store = open();
    store.putPoolResource(new PoolResourceRecord("compute-5-0", "compute", 2, 5));
    store.putPoolResource(new PoolResourceRecord("compute-5-1", "compute", 2, 5));
    store.putPoolResource(new PoolResourceRecord("compute-5-0", "compute", 4, 6));
    assertThat(store.deletePoolResource("compute-5-1")).isTrue();
    assertThat(store.deletePoolResource("compute-5-1")).isFalse();
    assertThat(reopen(store).poolResources()).containsExactly(new PoolResourceRecord("compute-5-0", "compute", 4, 6));
    assertThatThrownBy(() -> store.putPoolResource(new PoolResourceRecord("x", "compute", 0, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("units >= 1");
  }

  @Test
  void decisionsKeepTheLatestPerScopeAndSurviveReopen() {
    JdbcMetaStore store = open();
    for (int i = 1; i <= 5; i++) {
      store.appendDecision("job:q5", i * 10L, "decision " + i, 3);
    }
    store.appendDecision("pool:compute", 7, "add a node", 3);
    JdbcMetaStore reopened = reopen(store);
    assertThat(reopened.decisions("job:q5")).extracting(DecisionRecord::seq, DecisionRecord::decision).containsExactly(
        org.assertj.core.groups.Tuple.tuple(3L, "decision 3"), org.assertj.core.groups.Tuple.tuple(4L, "decision 4"),
        org.assertj.core.groups.Tuple.tuple(5L, "decision 5"));
    assertThat(reopened.decisions("pool:compute")).singleElement().isEqualTo(new DecisionRecord("pool:compute", 1, 7, "add a node"));
    assertThat(reopened.decisions("job:unknown")).isEmpty();
    assertThatThrownBy(() -> reopened.appendDecision(" ", 1, "x", 3)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void optimizerGroupsRoundTrip() {
    JdbcMetaStore store = open();
    String props = "provider=local-process\nthreads=4\nmin-instances=1\n# unicode survives: é→✓\n";
    store.putOptimizerGroup("default", "threads=2");
    store.putOptimizerGroup("default", props);
    store.putOptimizerGroup("heavy", "threads=16");
    store.putOptimizerGroup("gone", "x=1");
    assertThat(store.deleteOptimizerGroup("gone")).isTrue();
    assertThat(store.deleteOptimizerGroup("gone")).isFalse();
    assertThat(reopen(store).load().optimizerGroups()).isEqualTo(Map.of("default", props, "heavy", "threads=16"));
    assertThatThrownBy(() -> open().putOptimizerGroup(" ", "x=1")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void optimizerGroupsWithProvidersAndResourcesRoundTrip() {
    JdbcMetaStore store = open();
    store.putOptimizerGroup(new OptimizerGroupRecord("default", "in-process", "a=1\n"));
    store.putOptimizerGroup(new OptimizerGroupRecord("heavy", "kubernetes", "kubernetes.memory=2Gi\n"));
    store.putOptimizerGroup(new OptimizerGroupRecord("default", "local", "a=2\n"));
    store.putOptimizerResource(new OptimizerResourceRecord("heavy-1-0", "heavy", 4, 1_700_000_000_000L));
    store.putOptimizerResource(new OptimizerResourceRecord("default-1-0", "default", 2, 1_700_000_000_001L));
    store.putOptimizerResource(new OptimizerResourceRecord("default-1-1", "default", 2, 1_700_000_000_002L));
    assertThat(store.deleteOptimizerResource("default-1-1")).isTrue();
    assertThat(store.deleteOptimizerResource("default-1-1")).isFalse();
    assertThatThrownBy(() -> store.putOptimizerResource(new OptimizerResourceRecord("x-1", "nope", 1, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no optimizer group 'nope'");

    JdbcMetaStore reopened = reopen(store);
    assertThat(reopened.optimizerGroups()).containsExactly(
        new OptimizerGroupRecord("default", "local", "a=2\n"), new OptimizerGroupRecord("heavy", "kubernetes", "kubernetes.memory=2Gi\n"));
    assertThat(reopened.load().optimizerGroups()).containsEntry("default", "a=2\n");
    assertThat(reopened.optimizerResources()).containsExactly(
        new OptimizerResourceRecord("default-1-0", "default", 2, 1_700_000_000_001L),
        new OptimizerResourceRecord("heavy-1-0", "heavy", 4, 1_700_000_000_000L));

    assertThat(reopened.deleteOptimizerGroup("heavy")).isTrue();
    assertThat(reopened.optimizerResources()).extracting(OptimizerResourceRecord::resourceId).containsExactly("default-1-0");
  }

  @Test
  void groupsStoredBeforeProvidersExistedMigrateToTheInProcessProvider() {
    JdbcMetaStore v1 = open(Schema.MIGRATIONS.subList(0, 1));
    v1.putOptimizerGroup("old", "threads=2");
    v1.close();
    JdbcMetaStore store = open();
    assertThat(store.optimizerGroups()).containsExactly(new OptimizerGroupRecord("old", "in-process", "threads=2"));
    store.putOptimizerResource(new OptimizerResourceRecord("old-1-0", "old", 1, 5));
    assertThat(store.optimizerResources()).hasSize(1);
  }

  @Test
  void everythingTogetherSurvivesReopen() {
    JdbcMetaStore store = open();
    JobRecord a = record(1, "q1", "adaptive;2=1", 3, 1, true);
    store.putJob(a);
    store.putWorker(new WorkerRecord(Fixtures.WORKERS.get(0), false));
    store.putOptimizerGroup("default", "threads=4");
    store.commitVersion(version(7, 9), new Counters(2, 30, 2, 110));
    MetaSnapshot before = store.load();
    MetaSnapshot after = reopen(store).load();
    assertThat(after).isEqualTo(before);
    assertThat(new TreeSet<>(after.jobs().keySet())).containsExactly(1);
    assertThat(after.version().getL0().getSstsCount()).isEqualTo(9);
  }

  @Test
  void aClosedStoreRefusesOperations() {
    JdbcMetaStore store = open();
    store.close();
    store.close();
    assertThatThrownBy(store::load)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("load refused: meta store " + store.describe() + " is closed");
  }
}
