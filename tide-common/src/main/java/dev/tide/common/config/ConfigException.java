package dev.tide.common.config;

/** An invalid configuration value: names the option, the value and the rule it breaks. */
public final class ConfigException extends IllegalArgumentException {
  private final String key;

  public ConfigException(String key, String value, String rule) {
    super("invalid value '" + value + "' for option '" + key + "': must be " + rule);
    this.key = key;
  }

  public ConfigException(String key, String message) {
    super("option '" + key + "': " + message);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
