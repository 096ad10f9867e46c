package dev.tide.meta.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on PostgreSQL, against a throwaway cluster this class starts and removes. It
 * fails (does not skip) where the PostgreSQL server binaries are missing.
 */
class PostgresMetaStoreTest extends MetaStoreContract {
  private static PostgresCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = PostgresCluster.start();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  protected String newStoreUrl() throws Exception {
    return cluster.createDatabase();
  }

  @Test
  void describeHidesUrlParameters() {
    assertThat(open().describe()).isEqualTo(url.substring(0, url.indexOf('?'))).doesNotContain("user=");
  }

  @Test
  void theNextOperationReconnectsAfterTheConnectionIsLost() throws Exception {
    JdbcMetaStore store = open();
    store.putOptimizerGroup("default", "threads=4");
    String database = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
    try (Connection c = DriverManager.getConnection(cluster.url("postgres")); Statement s = c.createStatement()) {
      s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "' AND pid <> pg_backend_pid()");
    }
    assertThatThrownBy(() -> store.putOptimizerGroup("heavy", "threads=16"))
        .isInstanceOf(MetaStoreException.class)
        .hasMessageStartingWith("put of optimizer group 'heavy' on meta store " + store.describe() + " failed");
    store.putOptimizerGroup("heavy", "threads=16");
    assertThat(store.load().optimizerGroups()).containsOnlyKeys("default", "heavy");
  }

  @Test
  void anUnreachableServerIsReportedNamingTheStore() throws Exception {
    String gone = cluster.url("no_such_database");
    assertThatThrownBy(() -> JdbcMetaStore.open(gone))
        .isInstanceOf(MetaStoreException.class)
        .hasMessageContaining("opening meta store " + gone.substring(0, gone.indexOf('?')) + " failed");
  }
}
