package dev.tide.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tide bench}: benchmarks; each subcommand is one suite. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Runs benchmarks.",
    footer = {"", "Commands of the bench module (Maven profile bench, brings Apache Flink; the ./tide launcher builds and runs it):",
        "  compare          Nexmark throughput of Tide and Apache Flink side by side",
        "  rescale-compare  rescale downtime of Tide (online) and Apache Flink (stop-with-savepoint, restore) side by side",
        "  jmh              JMH micro-benchmarks of the hot kernels (arguments are JMH's)",
        "  plot             redraws the charts from the CSV files of earlier compare and rescale-compare runs",
        "Run './tide bench COMMAND --help' for each."},
    subcommands = {NexmarkBenchCommand.class, RescaleBenchCommand.class, RescaleHotBenchCommand.class, ClusterBenchCommand.class, AutoscaleBenchCommand.class,
        KafkaBenchCommand.class})
final class BenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }
}
