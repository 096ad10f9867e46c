package dev.tide.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.cluster.ClusterTestPorts;
import dev.tide.cluster.MetaServer;
import dev.tide.cluster.ProcessOptions;
import dev.tide.common.auth.ClusterToken;
import dev.tide.common.time.Clock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input when a process starts: one clear error line, exit 1, no stack trace. */
class ProcessStartErrorsTest {
  record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = TideCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static void assertClearError(Run r, String... fragments) {
    assertThat(r.exit()).as(r.err()).isEqualTo(TideCli.EXIT_FAILED);
    assertThat(r.err()).contains(fragments).doesNotContain("\tat ", "Exception:");
  }

  @Test
  void aPortInUse(@TempDir Path dir) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertClearError(run("meta", "--data-dir", dir.toString(), "--listen", "127.0.0.1:" + port, "--http-port", "-1"),
          "cannot listen on 127.0.0.1:" + port, "choose another address");
      assertThat(dir.resolve("meta.db")).as("a refused start creates no meta store").doesNotExist();
      assertClearError(run("meta", "--data-dir", dir.toString(), "--listen", "127.0.0.1:0", "--http-port", String.valueOf(port)),
          "HTTP endpoint cannot listen on 127.0.0.1:" + port, "meta.http-port");
      assertThat(dir.resolve("meta.db")).doesNotExist();
    }
  }

  @Test
  void anUnreachableMeta(@TempDir Path dir) {
    int closed = ClusterTestPorts.free();
    assertClearError(run("compute", "--data-dir", dir.toString(), "--meta", "127.0.0.1:" + closed, "--set",
        "compute.register-timeout=1s"), "cannot reach meta at 127.0.0.1:" + closed, "--meta");
  }

  @Test
  void aWrongToken(@TempDir Path dir) {
    Map<String, String> raw = Map.of("data-dir", dir.resolve("meta").toString(), "meta.listen", "127.0.0.1:0", "meta.http-port", "-1");
    try (MetaServer meta = MetaServer.start(ProcessOptions.load(null, raw), Optional.of(ClusterToken.of("the-right-token-42424242")),
        Clock.SYSTEM)) {
      assertClearError(run("compute", "--data-dir", dir.toString(), "--meta", "127.0.0.1:" + meta.grpcPort(), "--token",
          "a-wrong-token-4242424242"), "wrong cluster token");
    }
  }

  @Test
  void aCorruptSqliteFile(@TempDir Path dir) throws Exception {
    Files.write(dir.resolve("meta.db"), "this is not a database, just some text that is long enough".repeat(100).getBytes());
    assertClearError(run("meta", "--data-dir", dir.toString(), "--listen", "127.0.0.1:0", "--http-port", "-1"), "meta.db");
  }

  @Test
  void anUnsupportedSchemaVersion(@TempDir Path dir) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("meta.db")); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL)");
      s.execute("INSERT INTO schema_version VALUES (999, 'from the future')");
    }
    assertClearError(run("meta", "--data-dir", dir.toString(), "--listen", "127.0.0.1:0", "--http-port", "-1"),
        "schema version is 999", "newer than");
  }

  @Test
  void anUnknownOptionInTheConfigFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tide.properties");
    Files.writeString(file, "barrier.intervall=1s\n");
    Run r = run("meta", "--config", file.toString());
    assertThat(r.exit()).as("a bad value is a usage error: " + r.err()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).startsWith("error: ").contains("barrier.intervall", "unknown option", "did you mean 'barrier.interval'?",
        file.toString()).doesNotContain("\tat ", "Exception:");
  }

  @Test
  void aMalformedAddressOrStoreUrlExitsTwoNamingTheKey(@TempDir Path dir) {
    Run listen = run("meta", "--data-dir", dir.toString(), "--listen", "127.0.0.1:99999");
    assertThat(listen.exit()).as(listen.err()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(listen.err()).contains("invalid value '127.0.0.1:99999' for option 'meta.listen': must be HOST:PORT with a port between 0 and 65535");
    Run metaAt = run("compute", "--data-dir", dir.toString(), "--meta", "bogus");
    assertThat(metaAt.exit()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(metaAt.err()).contains("'bogus' for option 'compute.meta'");
    Run store = run("meta", "--data-dir", dir.toString(), "--store", "jdbc:nope:x", "--http-port", "-1");
    assertThat(store.exit()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(store.err()).contains("'jdbc:nope:x' for option 'meta.store': must be empty, jdbc:sqlite:FILE or jdbc:postgresql://");
    assertThat(dir.resolve("meta.db")).doesNotExist();
  }

  @Test
  void aComputePoolThatCannotRunHereExitsTwoNamingTheKeyAndCreatesNothing(@TempDir Path dir) {
    Run inProcess = run("meta", "--data-dir", dir.toString(), "--http-port", "-1", "--set", "compute-pool.provider=in-process");
    assertThat(inProcess.exit()).as(inProcess.err()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(inProcess.err()).contains("option 'compute-pool.provider': in-process: in-process compute nodes run only in the embedded");
    Run minAboveMax = run("meta", "--data-dir", dir.toString(), "--http-port", "-1", "--set", "compute-pool.provider=local",
        "--set", "compute-pool.min-slots=20", "--set", "compute-pool.max-slots=8");
    assertThat(minAboveMax.exit()).as(minAboveMax.err()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(minAboveMax.err()).contains("compute-pool.min-slots").contains("20");
    Run unknownProvider = run("meta", "--data-dir", dir.toString(), "--set", "compute-pool.provider=cloud");
    assertThat(unknownProvider.exit()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(unknownProvider.err()).contains("'cloud' for option 'compute-pool.provider': must be one of none, in-process, local, kubernetes");
    assertThat(dir.resolve("meta.db")).doesNotExist();
  }

  @Test
  void aBadValueOfASetFlagExitsTwo(@TempDir Path dir) {
    Run r = run("compute", "--data-dir", dir.toString(), "--set", "compute.slots=0");
    assertThat(r.exit()).as(r.err()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).contains("invalid value '0' for option 'compute.slots': must be between 1 and 1024");
  }
}
