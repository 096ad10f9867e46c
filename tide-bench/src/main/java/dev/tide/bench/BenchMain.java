package dev.tide.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Entry point of the bench module, started by {@code ./tide bench compare|rescale-compare|rescale-hot-compare|jmh ...}:
 * Tide side by side with Apache Flink, and the JMH kernels.
 */
@Command(name = "tide bench", mixinStandardHelpOptions = true,
    description = "Tide against Apache Flink 2.3.0, and JMH micro-benchmarks (module tide-bench, Maven profile bench).",
    subcommands = {CompareCommand.class, RescaleCompareCommand.class, RescaleHotCompareCommand.class, JmhCommand.class, PlotCommand.class})
public final class BenchMain implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    Logs.quietFlink();
    System.exit(new CommandLine(new BenchMain()).execute(args));
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }
}
