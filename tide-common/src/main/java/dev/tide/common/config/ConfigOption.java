package dev.tide.common.config;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A declared configuration option: key, type parser, default, description and a validation rule.
 * Declare each option once as a constant; docs tables are generated from the declarations.
 *
 * @param <T> value type
 */
public final class ConfigOption<T> {
  private final String key;
  private final T defaultValue;
  private final String description;
  private final Function<String, T> parser;
  private final Predicate<T> rule;
  private final String ruleText;

  private ConfigOption(String key, T defaultValue, String description, Function<String, T> parser, Predicate<T> rule, String ruleText) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
    this.parser = parser;
    this.rule = rule;
    this.ruleText = ruleText;
  }

  public static ConfigOption<Integer> intOption(String key, Integer def, String description) {
    return new ConfigOption<>(key, def, description, s -> Integer.parseInt(s.trim()), v -> true, "an integer");
  }

  public static ConfigOption<Long> longOption(String key, Long def, String description) {
    return new ConfigOption<>(key, def, description, s -> Long.parseLong(s.trim()), v -> true, "an integer");
  }

  public static ConfigOption<Double> doubleOption(String key, Double def, String description) {
    return new ConfigOption<>(key, def, description, s -> Double.parseDouble(s.trim()), v -> true, "a number");
  }

  public static ConfigOption<Boolean> boolOption(String key, Boolean def, String description) {
    return new ConfigOption<>(key, def, description, ConfigOption::parseBool, v -> true, "true or false");
  }

  public static ConfigOption<String> stringOption(String key, String def, String description) {
    return new ConfigOption<>(key, def, description, String::trim, v -> true, "a string");
  }

  public static ConfigOption<Duration> durationOption(String key, Duration def, String description) {
    return new ConfigOption<>(key, def, description, Durations::parse, v -> true, "a duration such as 500ms, 30s, 5min");
  }

  /**
   * The same option with an added rule; {@code ruleText} completes "must be ...". A non-null default
   * must satisfy the rule: a declaration that breaks its own rule is refused here.
   */
  public ConfigOption<T> withRule(Predicate<T> check, String ruleText) {
    if (defaultValue != null && !check.test(defaultValue)) {
      throw new IllegalArgumentException("option '" + key + "' declared with default " + defaultValue
          + ", which breaks its rule: must be " + ruleText);
    }
    Predicate<T> prev = rule;
    return new ConfigOption<>(key, defaultValue, description, parser, v -> prev.test(v) && check.test(v), ruleText);
  }

  private static Boolean parseBool(String s) {
    String t = s.trim().toLowerCase(java.util.Locale.ROOT);
    if (t.equals("true")) {
      return true;
    }
    if (t.equals("false")) {
      return false;
    }
    throw new IllegalArgumentException("not a boolean");
  }

  public String key() {
    return key;
  }

  public T defaultValue() {
    return defaultValue;
  }

  public String description() {
    return description;
  }

  public String ruleText() {
    return ruleText;
  }

  /**
   * The unit of the value, for docs and {@code tide options}: "duration" for a duration option, "bytes"
   * for a key ending in {@code -bytes} (the unit is in the name), else empty.
   */
  public String unit() {
    if (defaultValue instanceof Duration || ruleText.startsWith("a duration")) {
      return "duration";
    }
    return key.endsWith("-bytes") ? "bytes" : "";
  }

  /** The default as a user writes it: durations as {@code 500ms}, {@code 30s}; null and empty as empty. */
  public String defaultText() {
    return defaultValue instanceof Duration d ? Durations.format(d) : defaultValue == null ? "" : String.valueOf(defaultValue);
  }

  /** Parses and validates a raw value; errors name the key, the value and the rule. */
  public T parse(String raw) {
    T v;
    try {
      v = parser.apply(Objects.requireNonNull(raw));
    } catch (RuntimeException e) {
      throw new ConfigException(key, raw, ruleText);
    }
    if (v == null || !rule.test(v)) {
      // Quote what the user wrote, not the parsed value's toString (a Duration would print as PT0.005S).
      throw new ConfigException(key, raw, ruleText);
    }
    return v;
  }

  /** Checks a typed value against the rule; the error shows durations in {@link Durations} form. */
  public void validate(T v) {
    if (v == null || !rule.test(v)) {
      throw new ConfigException(key, v instanceof Duration d ? Durations.format(d) : String.valueOf(v), ruleText);
    }
  }
}
