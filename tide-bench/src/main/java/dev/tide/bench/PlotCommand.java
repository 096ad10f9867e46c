package dev.tide.bench;

import dev.tide.bench.report.Plots;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tide bench plot}: redraws the PNG charts from the CSV files of earlier runs. */
@Command(name = "plot", mixinStandardHelpOptions = true,
    description = "Redraws throughput.png and the rescale charts from the CSV files of earlier runs.")
public final class PlotCommand implements Callable<Integer> {
  @Option(names = "--compare", description = "Output directory of 'compare' (holds summary.csv).")
  Path compare;

  @Option(names = "--rescale", description = "Output directory of 'rescale-compare' (holds rescale.csv).")
  Path rescale;

  @Override
  public Integer call() throws Exception {
    if (compare != null) {
      Plots.throughput(compare, "Nexmark throughput, Tide vs Flink");
      System.out.println("Wrote " + compare.resolve("throughput.png"));
    }
    if (rescale != null) {
      Plots.rescale(rescale, "Rescale 2 -> 4");
      System.out.println("Wrote " + rescale.resolve("rescale-gap.png") + ", rescale-steady.png");
    }
    if (compare == null && rescale == null) {
      System.err.println("error: nothing to plot; give --compare DIR and/or --rescale DIR");
      return 2;
    }
    return 0;
  }
}
