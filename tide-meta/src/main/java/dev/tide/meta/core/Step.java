package dev.tide.meta.core;

import java.util.List;

/**
 * What one call into the core produced: effects for the driver, in order, and the time at which the
 * driver must call {@link MetaCore#poll} next (sooner when an event arrives).
 */
public record Step(List<Effect> effects, long nextDeadlineMs) {
  public Step {
    effects = List.copyOf(effects);
  }
}
