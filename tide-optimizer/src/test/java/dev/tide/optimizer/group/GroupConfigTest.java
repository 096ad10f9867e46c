package dev.tide.optimizer.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Declarations, single-value rules and the combination rules checked when DRA is enabled (spec 6, 7). */
class GroupConfigTest {

  private static Map<String, String> enabled(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("dynamic-allocation.enabled", "true");
    m.put("dynamic-allocation.max-parallelism", "16");
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] == null) {
        m.remove(kv[i]);
      } else {
        m.put(kv[i], kv[i + 1]);
      }
    }
    return m;
  }

  private static void refused(Map<String, String> props, String provider, String message) {
    assertThatThrownBy(() -> GroupConfig.parse(props, provider))
        .isInstanceOf(ConfigException.class)
        .hasMessage(message);
  }

  @Test
  void defaultsMatchTheSpecTable() {
    GroupConfig c = GroupConfig.parse(Map.of(), "in-process");
    assertThat(c.draEnabled()).isFalse();
    assertThat(c.minParallelism()).isZero();
    assertThat(c.maxParallelismIfSet()).isEmpty();
    assertThat(c.executorParallelism()).isEqualTo(1);
    assertThat(c.schedulerBacklogTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.sustainedBacklogTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.executorIdleTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.scaleDownCooldown()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.drainTimeout()).isEqualTo(Duration.ofMinutes(15));
    assertThat(c.bootDeadline()).isEqualTo(Duration.ofMinutes(3));
    assertThat(c.maxPlanningParallelism()).isEqualTo(1);
    assertThat(c.heartBeatTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.taskAckTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThatThrownBy(c::maxParallelism).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dynamic-allocation.max-parallelism is not set");
  }

  @Test
  void parsesAnEnabledGroupWithTheSettingsItsProviderDeclares() {
    List<ConfigOption<?>> providerOptions = List.of(ConfigOption.stringOption("kubernetes.image", null, "image"));
    GroupConfig c = GroupConfig.parse(enabled("dynamic-allocation.min-parallelism", "4",
        "dynamic-allocation.executor-parallelism", "4", "dynamic-allocation.sustained-backlog-timeout", "10s",
        "kubernetes.image", "tide/optimizer:1"), "kubernetes", providerOptions);
    assertThat(c.draEnabled()).isTrue();
    assertThat(c.maxParallelism()).isEqualTo(16);
    assertThat(c.minParallelism()).isEqualTo(4);
    assertThat(c.executorParallelism()).isEqualTo(4);
    assertThat(c.sustainedBacklogTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.provider()).isEqualTo("kubernetes");
    assertThatThrownBy(() -> GroupConfig.parse(enabled("kubernetes.image", "tide/optimizer:1"), "local"))
        .as("another provider's setting").hasMessageContaining("'kubernetes.image': unknown option");
  }

  @Test
  void singleValueRulesNameThePropertyTheValueAndTheRule() {
    String[][] cases = {
        {"dynamic-allocation.enabled", "yes", "true or false"},
        {"dynamic-allocation.min-parallelism", "-1", "at least 0"},
        {"dynamic-allocation.max-parallelism", "0", "between 1 and 1024"},
        {"dynamic-allocation.max-parallelism", "1025", "between 1 and 1024"},
        {"dynamic-allocation.executor-parallelism", "0", "at least 1"},
        {"dynamic-allocation.scheduler-backlog-timeout", "0s", "greater than 0ms"},
        {"dynamic-allocation.sustained-backlog-timeout", "0", "greater than 0ms"},
        {"dynamic-allocation.executor-idle-timeout", "29s", "at least 30s"},
        {"dynamic-allocation.scale-down-cooldown", "0ms", "greater than 0ms"},
        {"dynamic-allocation.drain-timeout", "0min", "greater than 0ms"},
        {"dynamic-allocation.drain-timeout", "soon", "greater than 0ms"},
        {"dra.boot-deadline", "0s", "greater than 0ms"},
        {"optimizer.max-planning-parallelism", "0", "at least 1"},
        {"optimizer.heart-beat-timeout", "0s", "greater than 0ms"},
        {"optimizer.task-ack-timeout", "0s", "greater than 0ms"},
    };
    for (String[] c : cases) {
      // Refused whether or not DRA is enabled.
      refused(Map.of(c[0], c[1]), "local", "invalid value '" + c[1] + "' for option '" + c[0] + "': must be " + c[2]);
      refused(enabled(c[0], c[1]), "local", "invalid value '" + c[1] + "' for option '" + c[0] + "': must be " + c[2]);
    }
  }

  @Test
  void maxParallelismIsRequiredWhenEnabled() {
    refused(enabled("dynamic-allocation.max-parallelism", null), "kubernetes",
        "option 'dynamic-allocation.max-parallelism': missing: required when dynamic-allocation.enabled is true"
            + " (between 1 and 1024)");
  }

  @Test
  void minMustNotExceedMax() {
    refused(enabled("dynamic-allocation.min-parallelism", "17"), "kubernetes",
        "invalid value '17' for option 'dynamic-allocation.min-parallelism': must be at most"
            + " dynamic-allocation.max-parallelism (16)");
  }

  @Test
  void floorInWholeInstancesMustFitUnderMax() {
    refused(enabled("dynamic-allocation.max-parallelism", "5", "dynamic-allocation.min-parallelism", "5",
        "dynamic-allocation.executor-parallelism", "2"), "kubernetes",
        "invalid value '5' for option 'dynamic-allocation.min-parallelism': must be such that ceil(min/K)·K ≤"
            + " dynamic-allocation.max-parallelism: whole instances of K=2 threads reach 6 > 5");
    // min 4, K 2, max 5: two instances of 2 fit.
    assertThat(GroupConfig.parse(enabled("dynamic-allocation.max-parallelism", "5", "dynamic-allocation.min-parallelism", "4",
        "dynamic-allocation.executor-parallelism", "2"), "kubernetes").minParallelism()).isEqualTo(4);
  }

  @Test
  void executorParallelismMustNotExceedMax() {
    refused(enabled("dynamic-allocation.executor-parallelism", "17"), "local",
        "invalid value '17' for option 'dynamic-allocation.executor-parallelism': must be at most"
            + " dynamic-allocation.max-parallelism (16): a single instance would already exceed the cap");
  }

  @Test
  void sustainedMustBeAtMostHalfTheIdleTimeout() {
    refused(enabled("dynamic-allocation.sustained-backlog-timeout", "31s", "dynamic-allocation.executor-idle-timeout", "1min"),
        "local", "invalid value '31s' for option 'dynamic-allocation.sustained-backlog-timeout': must be at most"
            + " dynamic-allocation.executor-idle-timeout / 2 (1min / 2 = 30s)");
    assertThat(GroupConfig.parse(enabled("dynamic-allocation.sustained-backlog-timeout", "30s",
        "dynamic-allocation.executor-idle-timeout", "1min"), "local").sustainedBacklogTimeout()).hasSeconds(30);
  }

  @Test
  void draIsRefusedOnTheExternalProvider() {
    refused(enabled(), "external",
        "invalid value 'true' for option 'dynamic-allocation.enabled': must be false on provider 'external': its optimizers"
            + " are started by hand, the keeper cannot request or release them");
    assertThat(GroupConfig.parse(Map.of("dynamic-allocation.enabled", "false"), "external").draEnabled()).isFalse();
  }

  @Test
  void onlyTheFloorsCombinationIsCheckedWhileDisabled() {
    GroupConfig c = GroupConfig.parse(Map.of("dynamic-allocation.executor-parallelism", "20", "dynamic-allocation.max-parallelism",
        "10", "dynamic-allocation.sustained-backlog-timeout", "10min"), "external");
    assertThat(c.draEnabled()).isFalse();
    assertThat(c.executorParallelism()).isEqualTo(20);
    refused(Map.of("dynamic-allocation.min-parallelism", "20", "dynamic-allocation.max-parallelism", "10"), "local",
        "invalid value '20' for option 'dynamic-allocation.min-parallelism': must be at most dynamic-allocation.max-parallelism (10)");
    assertThat(GroupConfig.parse(Map.of("dynamic-allocation.min-parallelism", "20"), "local").minParallelism())
        .as("no cap set: nothing to fit under").isEqualTo(20);
  }

  @Test
  void unknownDynamicAllocationKeysAreRefused() {
    assertThatThrownBy(() -> GroupConfig.parse(enabled("dynamic-allocation.max-paralelism", "8"), "local"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'dynamic-allocation.max-paralelism'")
        .hasMessageContaining("unknown option")
        .hasMessageContaining("dynamic-allocation.max-parallelism");
    assertThatThrownBy(() -> GroupConfig.parse(enabled("dra.boot-deadlin", "1min"), "local"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("'dra.boot-deadlin'");
  }

  @Test
  void aStoredInvalidConfigurationIsTreatedAsDisabledNeverHalfApplied() {
    GroupConfig.Loaded ok = GroupConfig.loadStored(enabled(), "local", List.of());
    assertThat(ok.invalid()).isFalse();
    assertThat(ok.config().draEnabled()).isTrue();

    GroupConfig.Loaded bad = GroupConfig.loadStored(enabled("dynamic-allocation.min-parallelism", "30",
        "dynamic-allocation.drain-timeout", "1min"), "local", List.of());
    assertThat(bad.invalid()).isTrue();
    assertThat(bad.invalidReason()).hasValueSatisfying(r -> assertThat(r).contains("dynamic-allocation.min-parallelism"));
    assertThat(bad.config().draEnabled()).isFalse();
    assertThat(bad.config().minParallelism()).isZero();
    assertThat(bad.config().drainTimeout()).as("nothing of the invalid set is applied").isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void everyOptionIsDeclaredOnceAndTheDocsTableIsGeneratedFromTheDeclarations() {
    Set<String> keys = new HashSet<>();
    for (GroupConfig.Declaration d : GroupConfig.declarations()) {
      assertThat(keys.add(d.option().key())).as(d.option().key()).isTrue();
      assertThat(d.option().description()).isNotBlank();
      assertThat(d.unit()).isNotBlank();
    }
    assertThat(keys).contains("dynamic-allocation.enabled", "dynamic-allocation.min-parallelism",
        "dynamic-allocation.max-parallelism", "dynamic-allocation.executor-parallelism",
        "dynamic-allocation.scheduler-backlog-timeout", "dynamic-allocation.sustained-backlog-timeout",
        "dynamic-allocation.executor-idle-timeout", "dynamic-allocation.scale-down-cooldown",
        "dynamic-allocation.drain-timeout", "optimizer.max-planning-parallelism", "dra.boot-deadline",
        "optimizer.heart-beat-timeout", "optimizer.task-ack-timeout");
    String md = GroupConfig.optionsMarkdown();
    assertThat(md.lines()).hasSize(2 + keys.size());
    assertThat(md).contains("| `dynamic-allocation.max-parallelism` | required | threads | between 1 and 1024 |")
        .contains("| `dynamic-allocation.executor-idle-timeout` | 5min | duration | at least 30s |")
        .contains("| `dra.boot-deadline` | 3min |");
  }

  @Test
  void equalConfigsAreEqual() {
    assertThat(GroupConfig.parse(enabled(), "local")).isEqualTo(GroupConfig.parse(enabled(), "local"))
        .hasSameHashCodeAs(GroupConfig.parse(enabled(), "local"))
        .isNotEqualTo(GroupConfig.parse(enabled(), "kubernetes"));
    assertThat(GroupConfig.parse(enabled(), "local").toString()).contains("dynamic-allocation.max-parallelism=16");
  }

  @Test
  void aFloorWithoutDynamicAllocationMustFitUnderTheCapToo() {
    // The floor-only keeper tops a group without DRA up to min-parallelism in whole instances of K threads.
    refused(Map.of("dynamic-allocation.min-parallelism", "4", "dynamic-allocation.executor-parallelism", "8",
        "dynamic-allocation.max-parallelism", "4"), "local",
        "invalid value '4' for option 'dynamic-allocation.min-parallelism': must be such that ceil(min/K)·K ≤"
            + " dynamic-allocation.max-parallelism: whole instances of K=8 threads reach 8 > 4");
    assertThat(GroupConfig.parse(Map.of("dynamic-allocation.executor-parallelism", "8", "dynamic-allocation.max-parallelism", "4"),
        "local").draEnabled()).as("no floor: nothing to fit").isFalse();
  }

  @Test
  void unknownKeysAreRefusedNamingTheKnownOnes() {
    assertThatThrownBy(() -> GroupConfig.parse(Map.of("no.such.key", "1"), "local"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("option 'no.such.key': unknown option; known options are [")
        .hasMessageContaining("dynamic-allocation.enabled").hasMessageContaining("optimizer.task-ack-timeout");
  }
}
