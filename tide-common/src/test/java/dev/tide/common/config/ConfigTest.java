package dev.tide.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** Declared options: parsing, defaults, refusals that name the key, the value and the rule. */
class ConfigTest {
  static final ConfigOption<Integer> PARALLELISM = ConfigOption.intOption("job.parallelism", 4, "Actors per fragment.")
      .withRule(v -> v >= 1 && v <= 1024, "between 1 and 1024");
  static final ConfigOption<Duration> INTERVAL = ConfigOption.durationOption("barrier.interval", Duration.ofSeconds(1), "Barrier interval.")
      .withRule(d -> d.toMillis() >= 10, "at least 10ms");
  static final ConfigOption<Boolean> ENABLED = ConfigOption.boolOption("autoscale.enabled", false, "Autoscaler on.");
  static final ConfigOption<Double> RATIO = ConfigOption.doubleOption("scale.ratio", 0.5, "Ratio.")
      .withRule(v -> v > 0 && v <= 1, "in (0, 1]");
  static final ConfigOption<String> NAME = ConfigOption.stringOption("cluster.name", "tide", "Name.");
  static final ConfigOption<Long> EVENTS = ConfigOption.longOption("events", -1L, "Events.");
  static final List<ConfigOption<?>> ALL = List.of(PARALLELISM, INTERVAL, ENABLED, RATIO, NAME, EVENTS);

  @Example
  void parsesTypedValuesAndFallsBackToDefaults() {
    Config c = Config.parse(Map.of("job.parallelism", " 16 ", "barrier.interval", "250ms", "autoscale.enabled", "TRUE",
        "cluster.name", " prod "), ALL);
    assertThat(c.get(PARALLELISM)).isEqualTo(16);
    assertThat(c.get(INTERVAL)).isEqualTo(Duration.ofMillis(250));
    assertThat(c.get(ENABLED)).isTrue();
    assertThat(c.get(NAME)).isEqualTo("prod");
    assertThat(c.get(RATIO)).isEqualTo(0.5);
    assertThat(c.isSet(RATIO)).isFalse();
    assertThat(c.isSet(PARALLELISM)).isTrue();
    assertThat(c.keys()).containsExactlyInAnyOrder("job.parallelism", "barrier.interval", "autoscale.enabled", "cluster.name");
    assertThat(Config.defaults().get(EVENTS)).isEqualTo(-1L);
  }

  @Example
  void unknownKeyIsRefusedNamingItAndTheKnownKeys() {
    assertThatThrownBy(() -> Config.parse(Map.of("job.paralelism", "4"), ALL))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'job.paralelism'")
        .hasMessageContaining("unknown option")
        .hasMessageContaining("[autoscale.enabled, barrier.interval, cluster.name, events, job.parallelism, scale.ratio]")
        .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo("job.paralelism"));
  }

  @Example
  void invalidValuesAreRefusedNamingKeyValueAndRule() {
    expectRefusal("job.parallelism", "0", "between 1 and 1024");
    expectRefusal("job.parallelism", "2000", "between 1 and 1024");
    expectRefusal("job.parallelism", "four", "between 1 and 1024");
    expectRefusal("job.parallelism", "99999999999", "between 1 and 1024");
    expectRefusal("barrier.interval", "5ms", "at least 10ms");
    expectRefusal("barrier.interval", "1.5s", "at least 10ms");
    expectRefusal("autoscale.enabled", "yes", "true or false");
    expectRefusal("scale.ratio", "0", "in (0, 1]");
    expectRefusal("scale.ratio", "NaN", "in (0, 1]");
    expectRefusal("events", "1e3", "an integer");
  }

  private static void expectRefusal(String key, String value, String rule) {
    Map<String, String> raw = new HashMap<>();
    raw.put(key, value);
    assertThatThrownBy(() -> Config.parse(raw, ALL))
        .as("%s=%s", key, value)
        .isInstanceOf(ConfigException.class)
        .hasMessage("invalid value '" + value + "' for option '" + key + "': must be " + rule);
  }

  @Example
  void firstBadEntryInKeyOrderIsReported() {
    assertThatThrownBy(() -> Config.parse(Map.of("scale.ratio", "2", "job.parallelism", "0"), ALL))
        .hasMessageContaining("'job.parallelism'");
  }

  @Example
  void withValidatesAndLeavesTheOriginalUnchanged() {
    Config base = Config.defaults();
    Config more = base.with(PARALLELISM, 8);
    assertThat(more.get(PARALLELISM)).isEqualTo(8);
    assertThat(base.get(PARALLELISM)).isEqualTo(4);
    assertThatThrownBy(() -> base.with(PARALLELISM, 0)).hasMessage("invalid value '0' for option 'job.parallelism': must be between 1 and 1024");
    assertThatThrownBy(() -> base.with(PARALLELISM, null)).hasMessageContaining("invalid value 'null'");
    assertThatThrownBy(() -> base.with(INTERVAL, Duration.ofMillis(5)))
        .hasMessage("invalid value '5ms' for option 'barrier.interval': must be at least 10ms");
  }

  @Example
  void aDefaultThatBreaksItsOwnRuleIsRefusedAtDeclaration() {
    assertThatThrownBy(() -> ConfigOption.intOption("queue.size", 0, "Queue size.").withRule(v -> v > 0, "positive"))
        .hasMessageContaining("'queue.size'").hasMessageContaining("default 0").hasMessageContaining("must be positive");
  }

  @Example
  void declarationKeepsKeyDefaultDescriptionAndRuleText() {
    assertThat(PARALLELISM.key()).isEqualTo("job.parallelism");
    assertThat(PARALLELISM.defaultValue()).isEqualTo(4);
    assertThat(PARALLELISM.description()).isEqualTo("Actors per fragment.");
    assertThat(PARALLELISM.ruleText()).isEqualTo("between 1 and 1024");
    assertThat(EVENTS.ruleText()).isEqualTo("an integer");
  }

  // ---- durations

  @Property
  void formatThenParseIsIdentity(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long ms) {
    Duration d = Duration.ofMillis(ms);
    assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
  }

  @Property
  void formatUsesTheLargestExactUnit(@ForAll @LongRange(min = 1, max = 1_000_000) long n) {
    assertThat(Durations.format(Duration.ofHours(n))).isEqualTo(n + "h");
    if (n % 60 != 0) {
      assertThat(Durations.format(Duration.ofMinutes(n))).isEqualTo(n + "min");
    }
    if (n % 1000 != 0) {
      assertThat(Durations.format(Duration.ofMillis(n))).isEqualTo(n + "ms");
    }
  }

  @Example
  void parsesEveryUnit() {
    assertThat(Durations.parse("500")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("30 sec")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse(" 5MIN ")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
    assertThat(Durations.format(Duration.ofMillis(90_000))).isEqualTo("90s");
  }

  @Example
  void badDurationsAreRefusedWithAnIllegalArgument() {
    for (String bad : List.of("", "ms", "-5s", "1.5s", "5 days", "5d", "1h30m")) {
      assertThatThrownBy(() -> Durations.parse(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "' is not a duration such as 500ms, 30s, 5min, 2h");
    }
    // Overflow must be an IllegalArgumentException too (callers such as the CLI catch only that).
    for (String huge : List.of("99999999999999999999", "9999999999999999h", "9223372036854775807s")) {
      assertThatThrownBy(() -> Durations.parse(huge)).as(huge)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + huge + "' is out of range");
    }
  }

  @Example
  void durationOptionRefusesOverflowNamingTheOption() {
    assertThatThrownBy(() -> Config.parse(Map.of("barrier.interval", "9999999999999999h"), ALL))
        .hasMessage("invalid value '9999999999999999h' for option 'barrier.interval': must be at least 10ms");
  }
}
