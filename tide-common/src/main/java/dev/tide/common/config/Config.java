package dev.tide.common.config;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A validated set of option values. Built from raw strings against the declared options; unknown
 * keys and invalid values are refused when the config is built, never later.
 */
public final class Config {
  private final Map<String, Object> values;

  private Config(Map<String, Object> values) {
    this.values = values;
  }

  public static Config defaults() {
    return new Config(Map.of());
  }

  /** Parses {@code raw} against {@code options}; throws {@link ConfigException} on the first bad entry. */
  public static Config parse(Map<String, String> raw, Collection<ConfigOption<?>> options) {
    Map<String, ConfigOption<?>> byKey = new HashMap<>();
    for (ConfigOption<?> o : options) {
      byKey.put(o.key(), o);
    }
    Map<String, Object> out = new HashMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(raw).entrySet()) {
      ConfigOption<?> o = byKey.get(e.getKey());
      if (o == null) {
        throw new ConfigException(e.getKey(), "unknown option; known options are " + new TreeMap<>(byKey).keySet());
      }
      out.put(o.key(), o.parse(e.getValue()));
    }
    return new Config(out);
  }

  @SuppressWarnings("unchecked")
  public <T> T get(ConfigOption<T> option) {
    Object v = values.get(option.key());
    return v == null ? option.defaultValue() : (T) v;
  }

  public boolean isSet(ConfigOption<?> option) {
    return values.containsKey(option.key());
  }

  /** A copy with one more value, validated. */
  public <T> Config with(ConfigOption<T> option, T value) {
    option.validate(value);
    Map<String, Object> m = new HashMap<>(values);
    m.put(option.key(), value);
    return new Config(m);
  }

  public Set<String> keys() {
    return values.keySet();
  }
}
