package dev.tide.optimizer.group;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An optimizer group as it is stored: its name, the resource provider that launches its instances and
 * its properties (the {@link GroupConfig} options plus provider settings such as
 * {@code kubernetes.memory}). The properties are not validated here: a stored definition may turn out
 * invalid ({@link GroupConfig#loadStored}).
 */
public record GroupDefinition(String name, String provider, SortedMap<String, String> properties) {
  /** Group names: lowercase DNS labels of at most 32 characters (they become parts of resource ids and pod names). */
  public static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?");
  public static final String NAME_RULE = "1 to 32 lowercase letters, digits or '-', starting and ending with a letter or digit";

  public GroupDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(provider, "provider");
    properties = Collections.unmodifiableSortedMap(new TreeMap<>(properties));
  }

  public static GroupDefinition of(String name, String provider, Map<String, String> properties) {
    return new GroupDefinition(name, provider, new TreeMap<>(properties));
  }

  /** @throws IllegalArgumentException naming {@code name} and the rule, when it is not a valid group name */
  public static void checkName(String operation, String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(operation + " refused: group name '" + name + "' is not valid: expected " + NAME_RULE);
    }
  }

  public GroupDefinition withProperties(Map<String, String> props) {
    return of(name, provider, props);
  }
}
