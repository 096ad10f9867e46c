package dev.tide.meta.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.meta.scale.Jobs;
import dev.tide.meta.store.CatalogRecord;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.stream.Dml;
import dev.tide.proto.stream.DmlRow;
import dev.tide.proto.stream.Mutation;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** The SQL catalog and table writes in the core: durable, dependency-guarded, answered at commit. */
class MetaCoreCatalogTest {
  private static CatalogRecord record(String name, String kind, String... dependsOn) {
    return new CatalogRecord(name, kind, "CREATE ... " + name, List.of(dependsOn));
  }

  private static JobDefinition withView(MetaCoreTest.Harness h, String name) {
    Command.JobIds ids = (Command.JobIds) h.ask(new Command.AllocateJobIds());
    JobDefinition def = Jobs.job(16, 4).toBuilder().setJobId(ids.jobId()).setName(name)
        .addTables(TableCatalog.newBuilder().setTableId(ids.tableIdBase()).setName(name).setIsMv(true)).build();
    h.ask(new Command.CreateJob(def));
    return def;
  }

  @SuppressWarnings("unchecked")
  private static SortedMap<String, CatalogRecord> catalog(MetaCoreTest.Harness h) {
    return (SortedMap<String, CatalogRecord>) h.ask(new Command.Catalog());
  }

  @Test
  void catalogObjectsAreDurableAndGuardedByWhatReadsThem() {
    MetaCoreTest.Harness h = new MetaCoreTest.Harness();
    int a = h.register("a", 2);
    h.ask(new Command.PutCatalog(record("bid", "source"), false));
    withView(h, "v");
    h.ask(new Command.PutCatalog(record("v", "view", "bid"), false));
    withView(h, "w");
    h.ask(new Command.PutCatalog(record("w", "view", "v"), false));
    h.advance(500, a);

    assertThatThrownBy(() -> h.ask(new Command.PutCatalog(record("bid", "source"), false)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the name is taken");
    assertThatThrownBy(() -> h.ask(new Command.PutCatalog(record("x", "view", "nope"), false)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'nope'");
    assertThatThrownBy(() -> h.ask(new Command.DropCatalog("v"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[w] depend on it");
    assertThatThrownBy(() -> h.ask(new Command.DropJob("v"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[w] read its view 'v'");
    assertThat(catalog(h)).containsOnlyKeys("bid", "v", "w");

    h.restart();
    assertThat(catalog(h)).containsOnlyKeys("bid", "v", "w");
    assertThat(catalog(h).get("w").dependsOn()).containsExactly("v");
    assertThat(h.ask(new Command.DropCatalog("w"))).isEqualTo(true);
    assertThat(h.ask(new Command.DropCatalog("w"))).isEqualTo(false);
    h.advance(3000, a); // recovery after the restart
    h.ask(new Command.DropJob("v")); // nothing reads it any more (its own record does not count)
    assertThat(h.store.load().catalog()).containsOnlyKeys("bid", "v");
  }

  @Test
  void aWriteRidesOneBarrierIsAnsweredWhenItsEpochCommitsAndARecoveryFailsIt() {
    MetaCoreTest.Harness h = new MetaCoreTest.Harness();
    int a = h.register("a", 2);
    JobDefinition t = withView(h, "t");
    h.advance(500, a);
    Dml rows = Dml.newBuilder().addRows(DmlRow.newBuilder().setDelete(false)).build();
    long id = h.send(new Command.Dml("t", rows));
    assertThat(h.replies).doesNotContainKey(id);
    h.advance(1000, a);
    assertThat(h.replies.get(id).error()).isNull();
    assertThat((Long) h.replies.get(id).value()).isPositive();
    List<Mutation> dml = h.injected.stream().filter(Mutation::hasDml).toList();
    assertThat(dml).hasSize(1);
    assertThat(dml.get(0).getDml().getJobId()).isEqualTo(t.getJobId());

    long lost = h.send(new Command.Dml("t", rows));
    h.run(h.core.handle(h.now, new Event.Failed(a, -1, "boom"))); // before the barrier carrying it commits
    h.advance(1000, a);
    assertThat(h.replies.get(lost).error()).isInstanceOf(IllegalStateException.class).hasMessageContaining("nothing was written");

    h.ask(new Command.SetPaused("t", true));
    assertThatThrownBy(() -> h.ask(new Command.Dml("t", rows))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("paused");
  }
}
