package dev.tide.optimizer.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local provider really spawns a JVM (a stand-in main class) and stops it. */
class LocalProcessProviderTest {
  @TempDir
  Path dir;

  private LocalProcessProvider provider(String mainClass) throws Exception {
    String classpath = Path.of(SleepingMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    return new LocalProcessProvider(new LocalProcessProvider.Settings("127.0.0.1:7070", classpath, mainClass, dir.resolve("logs"),
        Optional.of("tok"), Duration.ofSeconds(20), List.of(), LaunchRole.OPTIMIZER));
  }

  @Test
  void spawnsAnOptimizerJvmWithItsArgumentsAndStopsIt() throws Exception {
    try (LocalProcessProvider p = provider(SleepingMain.class.getName())) {
      LaunchSpec spec = LaunchSpec.of("default", "default-1-0", 3, Map.of(LocalProcessProvider.JVM_OPTIONS.key(), "-Xmx64m -Xss512k"));
      p.request(spec);
      p.request(spec); // idempotent: still one process
      ProcessHandle h = p.process("default-1-0").orElseThrow();
      assertThat(h.isAlive()).isTrue();
      assertThat(p.list()).containsExactly(spec);
      assertThat(p.command(spec)).containsSubsequence("-Xmx64m", "-Xss512k", "-cp");

      Path log = dir.resolve("logs/default-1-0.log");
      await().atMost(Duration.ofMinutes(1)).until(() -> Files.exists(log) && Files.readString(log).contains("TIDE_TOKEN="));
      // The token goes in the environment, not on the command line (which `ps` shows to every user).
      assertThat(Files.readString(log)).contains("started optimizer --meta 127.0.0.1:7070 --threads 3 --group default"
          + " --resource-id default-1-0\n").contains("TIDE_TOKEN=tok\n");
      assertThat(String.join(" ", p.command(spec))).doesNotContain("tok");

      p.release("default-1-0");
      assertThat(h.isAlive()).isFalse();
      assertThat(p.list()).isEmpty();
      p.release("default-1-0"); // idempotent
    }
  }

  @Test
  void computeNodesRunTheComputeCommandAndOneThatExitedIsNoLongerHeld() throws Exception {
    LocalProcessProvider p = new LocalProcessProvider(new LocalProcessProvider.Settings("127.0.0.1:7070",
        Path.of(SleepingMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(), "NoSuchMainClass",
        dir.resolve("logs"), Optional.empty(), Duration.ofSeconds(5), List.of("--data-dir", "/d"), LaunchRole.COMPUTE));
    LaunchSpec spec = LaunchSpec.of("compute", "compute-1-0", 2, Map.of());
    assertThat(p.command(spec)).endsWith("NoSuchMainClass", "compute", "--meta", "127.0.0.1:7070", "--slots", "2", "--resource-id",
        "compute-1-0", "--data-dir", "/d");
    p.request(spec); // the JVM finds no main class and exits: as a drained compute node does when told to leave
    ProcessHandle h = p.process("compute-1-0").orElseThrow();
    await().atMost(Duration.ofMinutes(1)).until(() -> !h.isAlive());
    assertThat(p.list()).isEmpty();
    p.release("compute-1-0"); // releasing what already left is fine
    p.close();
  }

  @Test
  void aProviderStartedLaterAdoptsTheProcessesAnEarlierOneLeftRunningAndOnlyThose() throws Exception {
    // Meta was killed: its provider never closed, its compute nodes run on; the restarted meta's provider holds them.
    // A class path of jars, as meta's: the command line is longer than the 4 KiB the JDK reads of it on Linux.
    String classpath = Path.of(SleepingMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
        + String.join(":", java.util.Collections.nCopies(100, dir.resolve("lib/some-dependency-1.0.0.jar").toString()));
    LocalProcessProvider.Settings settings = new LocalProcessProvider.Settings("127.0.0.1:7070", classpath, SleepingMain.class.getName(),
        dir.resolve("logs"), Optional.empty(), Duration.ofSeconds(20), List.of("--data-dir", dir.toString()), LaunchRole.COMPUTE);
    LocalProcessProvider before = new LocalProcessProvider(settings);
    LaunchSpec spec = LaunchSpec.of("compute", "compute-1-0", 2, Map.of(LocalProcessProvider.JVM_OPTIONS.key(), "-Xmx64m"));
    before.request(spec);
    ProcessHandle h = before.process("compute-1-0").orElseThrow();
    Path log = dir.resolve("logs/compute-1-0.log");
    await().atMost(Duration.ofMinutes(1)).until(() -> Files.exists(log) && Files.readString(log).contains("started compute"));

    LocalProcessProvider otherCluster = new LocalProcessProvider(new LocalProcessProvider.Settings("127.0.0.1:7071", classpath,
        SleepingMain.class.getName(), dir.resolve("logs"), Optional.empty(), Duration.ofSeconds(20), List.of("--data-dir",
        dir.toString()), LaunchRole.COMPUTE));
    assertThat(otherCluster.list()).as("another meta's node").isEmpty();
    LocalProcessProvider after = new LocalProcessProvider(settings);
    assertThat(after.list()).containsExactly(LaunchSpec.of("compute", "compute-1-0", 2, Map.of()));
    after.release("compute-1-0");
    assertThat(h.isAlive()).isFalse();
    assertThat(after.list()).isEmpty();
    before.close();
    otherCluster.close();
  }

  @Test
  void closeStopsEveryProcess() throws Exception {
    LocalProcessProvider p = provider(SleepingMain.class.getName());
    p.request(LaunchSpec.of("g", "g-1-0", 1, Map.of()));
    ProcessHandle h = p.process("g-1-0").orElseThrow();
    p.close();
    assertThat(h.isAlive()).isFalse();
  }

  @Test
  void aProcessThatCannotStartIsAProviderFailure() throws Exception {
    LocalProcessProvider p = new LocalProcessProvider(new LocalProcessProvider.Settings("127.0.0.1:7070", "x", "Main",
        Path.of("/proc/version/not-a-dir"), Optional.empty(), Duration.ofSeconds(1), List.of(), LaunchRole.OPTIMIZER));
    assertThatThrownBy(() -> p.request(LaunchSpec.of("g", "g-1-0", 1, Map.of()))).isInstanceOf(ProviderException.class)
        .hasMessageContaining("g-1-0 of group g did not start");
    assertThat(p.list()).isEmpty();
  }
}
