package dev.tide.optimizer.workload;

import dev.tide.optimizer.group.TableLoad;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A state table's optimizing properties.
 *
 * @param group the optimizer group that compacts it ({@code self-optimizing.group}, default {@value #DEFAULT_GROUP})
 * @param quota {@code self-optimizing.quota}: ≤ 1 a share of the group's threads, > 1 an absolute thread limit
 */
public record TableSettings(String group, double quota) {
  public static final String DEFAULT_GROUP = "default";
  public static final String GROUP_KEY = "self-optimizing.group";
  public static final String QUOTA_KEY = "self-optimizing.quota";
  /** The table properties there are. */
  public static final List<String> KEYS = List.of(GROUP_KEY, QUOTA_KEY);
  public static final TableSettings DEFAULTS = new TableSettings(DEFAULT_GROUP, TableLoad.DEFAULT_QUOTA);

  public TableSettings {
    if (group == null || group.isBlank()) {
      throw new IllegalArgumentException(GROUP_KEY + " '" + group + "' must be a non-blank group name, like '" + DEFAULT_GROUP + "'");
    }
    if (!(quota > 0) || Double.isInfinite(quota)) {
      throw new IllegalArgumentException(QUOTA_KEY + " " + quota
          + " must be a positive finite number: ≤ 1 for a share of the group's threads (like 0.5), > 1 for a thread limit (like 4)");
    }
  }

  /**
   * Parses table properties; keys not listed are refused.
   *
   * @throws IllegalArgumentException naming the property, the value and the rule
   */
  public static TableSettings parse(Map<String, String> props) {
    String group = DEFAULT_GROUP;
    double quota = TableLoad.DEFAULT_QUOTA;
    for (Map.Entry<String, String> e : props.entrySet()) {
      switch (e.getKey()) {
        case GROUP_KEY -> group = e.getValue();
        case QUOTA_KEY -> {
          try {
            quota = Double.parseDouble(Objects.requireNonNull(e.getValue()).trim());
          } catch (NumberFormatException ex) {
            throw new IllegalArgumentException(QUOTA_KEY + " '" + e.getValue() + "' is not a number; use a share ≤ 1 like 0.5 or a thread limit > 1 like 4");
          }
        }
        default -> throw new IllegalArgumentException("unknown table property '" + e.getKey() + "'; known properties are " + KEYS);
      }
    }
    return new TableSettings(group, quota);
  }
}
