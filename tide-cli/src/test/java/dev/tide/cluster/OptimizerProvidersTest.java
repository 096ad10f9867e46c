package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.cli.TideCli;
import dev.tide.common.time.Clock;
import dev.tide.optimizer.group.GroupDefinition;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The resource providers {@code tide meta} offers its optimizer groups, and its refusal of a misconfigured one. */
class OptimizerProvidersTest {

  @Test
  void metaOffersInProcessLocalAndExternal(@TempDir Path dir) {
    Map<String, String> raw = Map.of("data-dir", dir.toString(), "meta.listen", "127.0.0.1:0", "meta.http-port", "-1",
        "optimizer.create-default-group", "false");
    try (MetaServer meta = MetaServer.start(ProcessOptions.load(null, raw), Optional.empty(), Clock.SYSTEM)) {
      var keepers = meta.optimizerGroups().keepers();
      assertThat(keepers.providers()).containsExactly("external", "in-process", "local");
      // A group of hand-started optimizers: no keeper rounds, nothing requested.
      keepers.create(GroupDefinition.of("manual", "external", Map.of()));
      assertThat(keepers.show("manual").orElseThrow().nextEvaluationMs()).isEmpty();
      assertThat(keepers.show("manual").orElseThrow().resources()).isEmpty();
    }
  }

  @Test
  void aMisconfiguredKubernetesProviderStopsMetaWithOneLine(@TempDir Path dir) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = TideCli.run(new PrintWriter(out), new PrintWriter(err), "meta", "--data-dir", dir.toString(), "--listen",
        "127.0.0.1:0", "--http-port", "-1", "--set", "optimizer.kubernetes.enabled=true");
    assertThat(exit).as(err.toString()).isEqualTo(TideCli.EXIT_FAILED);
    assertThat(err.toString()).contains("option 'optimizer.kubernetes.image': missing: required when optimizer.kubernetes.enabled is true")
        .doesNotContain("\tat ", "Exception:");
    assertThat(out.toString()).doesNotContain("meta ready");
  }
}
