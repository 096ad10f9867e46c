package dev.tide.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PNG charts of the bench commands, drawn from the CSV files they wrote (so a chart can be
 * redrawn from a kept CSV with {@code tide bench plot}).
 */
public final class Plots {
  private Plots() {}

  /** {@code throughput.png} from {@code summary.csv} of {@code tide bench compare} in {@code dir}. */
  public static void throughput(Path dir, String title) throws IOException {
    List<String[]> rows = read(dir.resolve("summary.csv"));
    List<String> queries = new ArrayList<>();
    Map<String, List<Double>> series = new LinkedHashMap<>();
    series.put("Tide", new ArrayList<>());
    series.put("Flink", new ArrayList<>());
    for (String[] r : rows) {
      if (!"true".equals(r[8])) {
        continue; // engines disagreed: no figure
      }
      queries.add(r[0]);
      series.get("Tide").add(Double.parseDouble(r[1]));
      series.get("Flink").add(Double.parseDouble(r[2]));
    }
    if (!queries.isEmpty()) {
      Charts.bars(dir.resolve("throughput.png"), title, "query", "events/s (median)", queries, series, false);
    }
  }

  /** {@code rescale-gap.png} (log scale) and {@code rescale-steady.png} from {@code rescale.csv} in {@code dir}. */
  public static void rescale(Path dir, String title) throws IOException {
    List<String[]> rows = read(dir.resolve("rescale.csv"));
    List<String> sizes = new ArrayList<>();
    Map<String, List<Double>> gaps = new LinkedHashMap<>();
    Map<String, List<Double>> steady = new LinkedHashMap<>();
    for (String e : List.of("Tide", "Flink")) {
      gaps.put(e, new ArrayList<>());
      steady.put(e, new ArrayList<>());
    }
    for (String[] r : rows) {
      String size = (Long.parseLong(r[0]) >> 20) + " MB";
      if (!sizes.contains(size)) {
        sizes.add(size);
      }
      String engine = r[1].equals("tide") ? "Tide" : "Flink";
      // A log axis cannot show 0: a gap below a millisecond is drawn at 1 ms.
      gaps.get(engine).add(Math.max(1, Double.parseDouble(r[3])));
      double s = Double.parseDouble(r[5]);
      steady.get(engine).add(Double.isNaN(s) ? 0 : s);
    }
    Charts.bars(dir.resolve("rescale-gap.png"), title + ": longest time without progress (log scale)", "state size", "gap (ms)",
        sizes, gaps, true);
    Charts.bars(dir.resolve("rescale-steady.png"), title + ": request to steady throughput", "state size", "seconds",
        sizes, steady, false);
  }

  private static List<String[]> read(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    List<String[]> out = new ArrayList<>();
    for (String l : lines.subList(1, lines.size())) {
      out.add(l.split(",", -1));
    }
    return out;
  }
}
