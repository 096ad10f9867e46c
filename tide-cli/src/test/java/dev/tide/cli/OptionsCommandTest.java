package dev.tide.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.cluster.ProcessOptions;
import dev.tide.common.config.ConfigOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tide options} lists every key from the declarations; one file is read unchanged by every role. */
class OptionsCommandTest {
  @Test
  void listsEveryKeyWithDefaultUnitRuleAndRoles() {
    TideCliTest.Run r = OptimizerCommandTest.tide("options");
    assertThat(r.exitCode()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).containsPattern("^key +default +unit +roles +rule +description$");
    for (ConfigOption<?> o : ProcessOptions.all()) {
      assertThat(lines).as(o.key()).anyMatch(l -> l.startsWith(o.key() + " "));
    }
    assertThat(lines).anyMatch(l -> l.matches("object-store\\.dir +\\(empty\\) +- +meta,compute,optimizer +a string +Directory .*"));
    assertThat(lines).anyMatch(l -> l.matches("compute\\.register-timeout +30s +duration +compute +between 100ms and 1h +How long .*"));
    assertThat(lines).anyMatch(l -> l.matches("heartbeat\\.interval +\\S+ +duration +meta,compute .*"));
  }

  @Test
  void markdownHasOneRowPerKey() {
    TideCliTest.Run r = OptimizerCommandTest.tide("options", "--markdown");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out().lines().filter(l -> l.startsWith("| ")).count())
        .isEqualTo(ProcessOptions.all().size() + 1); // the header and one row per key
    assertThat(r.out()).contains("| data-dir | tide-data | - | meta,compute,optimizer |");
  }

  /** docs/configuration.md holds the output of 'tide options --markdown' (compute.slots' default is the machine's). */
  @Test
  void theDocsTableIsTheGeneratedOne() throws Exception {
    Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/configuration.md");
    List<String> documented = Files.readAllLines(doc).stream().filter(l -> l.startsWith("| ")).map(OptionsCommandTest::machineFree).toList();
    List<String> generated = OptimizerCommandTest.tide("options", "--markdown").out().lines().filter(l -> l.startsWith("| "))
        .map(OptionsCommandTest::machineFree).toList();
    assertThat(documented).as("regenerate the table of docs/configuration.md with 'tide options --markdown'")
        .containsExactlyElementsOf(generated);
  }

  private static String machineFree(String row) {
    return row.startsWith("| compute.slots | ") ? row.replaceFirst("^\\| compute\\.slots \\| \\d+ \\|", "| compute.slots | N |") : row;
  }

  @Test
  void oneFileServesEveryRoleAndATypoIsStillRefused(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tide.properties");
    Files.writeString(file, "data-dir=" + dir + "\nmeta.listen=127.0.0.1:0\ncompute.slots=2\nobject-store.dir=" + dir
        + "/objects\nheartbeat.timeout=5s\nexchange.window=64\n");
    assertThat(ProcessOptions.load(file, Map.of()).get(ProcessOptions.COMPUTE_SLOTS)).isEqualTo(2);

    Files.writeString(file, "compute.slot=2\n");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> ProcessOptions.load(file, Map.of())))
        .hasMessageContaining("'compute.slot'").hasMessageContaining("did you mean 'compute.slots'?");
  }
}
