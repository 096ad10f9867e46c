package dev.tide.meta.store;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp directory, started with pg_ctl on a
 * free loopback port (its unix socket in the same directory), stopped and deleted by
 * {@link #close()} (or, failing that, by a shutdown hook). As root the server binaries run as the
 * {@code postgres} OS user (PostgreSQL refuses to run as root).
 *
 * <p>The binaries are looked up in {@code /usr/lib/postgresql/<major>/bin}, newest major first;
 * without them {@link #start()} fails, naming where it looked and how to install them.
 */
public final class PostgresCluster implements AutoCloseable {
  private static final Path INSTALL_ROOT = Path.of("/usr/lib/postgresql");
  private static final String OS_USER = "postgres";
  /** Guard against a hung server tool; not a speed expectation. */
  private static final long TOOL_GUARD_MINUTES = 5;

  private final Path bin;
  private final Path dir;
  private final boolean asRoot;
  private final int port;
  private final Thread shutdownHook;
  private int databases;
  private boolean stopped;

  private PostgresCluster(Path bin, Path dir, boolean asRoot, int port) {
    this.bin = bin;
    this.dir = dir;
    this.asRoot = asRoot;
    this.port = port;
    this.shutdownHook = new Thread(this::stopQuietly, "postgres-test-cluster-stop");
  }

  public static PostgresCluster start() throws IOException, InterruptedException {
    Path bin = findBinaries();
    boolean asRoot = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("tide-pg-");
    if (asRoot) {
      UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(OS_USER);
      Files.setOwner(dir, postgres);
    }
    Files.createDirectory(dir.resolve("socket"));
    if (asRoot) {
      Files.setOwner(dir.resolve("socket"), Files.getOwner(dir));
    }
    PostgresCluster cluster = null;
    try {
      run(dir, asRoot, dir.resolve("initdb.out"), bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(),
          "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync");
      IOException last = null;
      for (int attempt = 0; attempt < 3 && cluster == null; attempt++) {
        int port = freePort();
        try {
          run(dir, asRoot, dir.resolve("pg_ctl-start.out"), bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
              "-l", dir.resolve("server.log").toString(), "-w", "-t", "120", "-o",
              "-p " + port + " -k " + dir.resolve("socket") + " -c listen_addresses=127.0.0.1 -c fsync=off"
                  + " -c synchronous_commit=off -c full_page_writes=off", "start");
          cluster = new PostgresCluster(bin, dir, asRoot, port);
        } catch (IOException e) { // most likely the port was taken meanwhile: try another
          last = e;
        }
      }
      if (cluster == null) {
        throw last;
      }
      Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      deleteTree(dir);
      throw e;
    }
  }

  private static Path findBinaries() {
    List<Path> candidates = new ArrayList<>();
    candidates.add(INSTALL_ROOT.resolve("15/bin"));
    if (Files.isDirectory(INSTALL_ROOT)) {
      try (Stream<Path> s = Files.list(INSTALL_ROOT)) {
        s.map(p -> p.resolve("bin")).sorted(Comparator.reverseOrder()).forEach(candidates::add);
      } catch (IOException e) {
        // fall through with the default candidate
      }
    }
    for (Path c : candidates) {
      if (Files.isExecutable(c.resolve("initdb")) && Files.isExecutable(c.resolve("pg_ctl"))) {
        return c;
      }
    }
    throw new IllegalStateException("PostgreSQL server binaries not found: no initdb and pg_ctl in " + candidates.stream().distinct().toList()
        + "; the PostgreSQL meta-store tests need them (Debian: apt-get install postgresql-15)");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Runs a server tool (as the postgres user when root) in {@code dir}; fails with its output if it exits non-zero. */
  private static void run(Path dir, boolean asRoot, Path output, String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if (asRoot) {
      cmd.addAll(List.of("runuser", "-u", OS_USER, "--"));
    }
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    if (!p.waitFor(TOOL_GUARD_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish within " + TOOL_GUARD_MINUTES + " minutes; output:\n" + read(output));
    }
    if (p.exitValue() != 0) {
      Path log = dir.resolve("server.log");
      throw new IOException(String.join(" ", cmd) + " exited with " + p.exitValue() + "; output:\n" + read(output)
          + (Files.exists(log) ? "\nserver log:\n" + read(log) : ""));
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** JDBC URL of {@code database} as the superuser. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
  }

  /** Creates a new empty database and returns its URL. */
  public synchronized String createDatabase() throws SQLException {
    String name = "tide_test_" + databases++;
    try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return url(name);
  }

  @Override
  public synchronized void close() throws IOException, InterruptedException {
    if (stopped) {
      return;
    }
    stopped = true;
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down
    }
    try {
      run(dir, asRoot, dir.resolve("pg_ctl-stop.out"), bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
          "-m", "fast", "-w", "stop");
    } finally {
      deleteTree(dir);
    }
  }

  private synchronized void stopQuietly() {
    if (stopped) {
      return;
    }
    stopped = true;
    try {
      run(dir, asRoot, dir.resolve("pg_ctl-stop.out"), bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
          "-m", "immediate", "-w", "stop");
      deleteTree(dir);
    } catch (IOException | InterruptedException e) {
      System.err.println("could not stop the test PostgreSQL cluster in " + dir + ": " + e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
