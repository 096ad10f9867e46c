package dev.tide.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tide bench}: benchmarks; each subcommand is one suite. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Runs benchmarks.",
    subcommands = {NexmarkBenchCommand.class, RescaleBenchCommand.class, ClusterBenchCommand.class})
final class BenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }
}
