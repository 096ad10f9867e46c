package dev.tide.meta.store;

import java.util.Objects;

/**
 * An optimizer group as the meta store keeps it.
 *
 * @param name the group name
 * @param provider the resource provider that launches its instances
 * @param properties the group's properties as text ({@code key=value} lines)
 */
public record OptimizerGroupRecord(String name, String provider, String properties) {
  public OptimizerGroupRecord {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(properties, "properties");
  }
}
