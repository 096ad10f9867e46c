package dev.tide.optimizer.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.config.ConfigOption;
import dev.tide.optimizer.group.GroupConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The options tables of {@code docs/optimizer-groups.md} are the ones generated from the declarations. */
class OptimizerGroupsDocsTest {
  static final Path DOC = Path.of("..", "docs", "optimizer-groups.md");

  /** key | default | value | description, one row per option. */
  static String table(List<ConfigOption<?>> options) {
    StringBuilder sb = new StringBuilder("| option | default | value | description |\n|---|---|---|---|\n");
    for (ConfigOption<?> o : options) {
      Object d = o.defaultValue();
      sb.append("| `").append(o.key()).append("` | ").append(d == null ? "—" : d.toString().isEmpty() ? "(empty)" : d)
          .append(" | ").append(o.ruleText()).append(" | ").append(o.description()).append(" |\n");
    }
    return sb.toString();
  }

  @Test
  void theDocsShowTheDeclaredOptions() throws IOException {
    String doc = Files.readString(DOC);
    List<Supplier<String>> tables = List.of(GroupConfig::optionsMarkdown,
        () -> table(List.of(LocalProcessProvider.JVM_OPTIONS)),
        () -> table(List.of(KubernetesProvider.CPU, KubernetesProvider.MEMORY, KubernetesProvider.IMAGE)),
        () -> table(KubernetesOptions.ALL));
    for (Supplier<String> t : tables) {
      assertThat(doc).as("%s must contain the generated table:%n%s", DOC, t.get()).contains(t.get());
    }
  }
}
