package dev.tide.optimizer.provider;

import java.util.List;

/**
 * What a launched resource runs, for the providers that start {@code tide} processes (local processes,
 * Kubernetes pods): an optimizer instance of an optimizer group, or a compute node of meta's compute
 * pool. A launch spec's {@code threads} are the optimizer's threads or the compute node's slots.
 */
public enum LaunchRole {
  OPTIMIZER("optimizer", "--threads", "tide-optimizer"),
  COMPUTE("compute", "--slots", "tide-compute");

  private final String command;
  private final String unitsFlag;
  private final String app;

  LaunchRole(String command, String unitsFlag, String app) {
    this.command = command;
    this.unitsFlag = unitsFlag;
    this.app = app;
  }

  /** The {@code tide} subcommand and its arguments for {@code spec}, reaching meta at {@code metaAddress}. */
  public List<String> args(String metaAddress, LaunchSpec spec) {
    return switch (this) {
      case OPTIMIZER -> List.of(command, "--meta", metaAddress, unitsFlag, String.valueOf(spec.threads()), "--group", spec.group(),
          "--resource-id", spec.resourceId());
      case COMPUTE -> List.of(command, "--meta", metaAddress, unitsFlag, String.valueOf(spec.threads()), "--resource-id",
          spec.resourceId());
    };
  }

  /** The units (threads or slots) of a launch from its arguments, as {@link #args} wrote them. */
  public int units(List<String> args) {
    return Integer.parseInt(args.get(args.indexOf(unitsFlag) + 1));
  }

  /** The name of the application, as labels and resource names carry it ({@code tide-optimizer}, {@code tide-compute}). */
  public String app() {
    return app;
  }

  /** What one resource of this role is called in messages. */
  public String noun() {
    return this == OPTIMIZER ? "optimizer" : "compute node";
  }
}
