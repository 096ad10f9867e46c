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

  /** {@code throughput.png} (steady events/s per query, a bar per engine) from {@code summary.csv} of {@code tide bench compare} in {@code dir}. */
  public static void throughput(Path dir, String title) throws IOException {
    List<String[]> rows = read(dir.resolve("summary.csv"));
    List<String> queries = new ArrayList<>();
    Map<String, Map<String, Double>> byEngine = new LinkedHashMap<>();
    for (String[] r : rows) {
      if (!"true".equals(r[10]) && !"alone".equals(r[10])) {
        continue; // engines disagreed or the engine failed: no figure
      }
      if (!queries.contains(r[0])) {
        queries.add(r[0]);
      }
      byEngine.computeIfAbsent(r[1], e -> new LinkedHashMap<>()).put(r[0], Double.parseDouble(r[2]));
    }
    Map<String, List<Double>> series = new LinkedHashMap<>();
    byEngine.forEach((engine, values) -> series.put(engine, queries.stream().map(q -> values.getOrDefault(q, 0.0)).toList()));
    if (!queries.isEmpty()) {
      Charts.bars(dir.resolve("throughput.png"), title + ", steady events/s", "query", "events/s (median)", queries, series, false);
    }
  }

  /** {@code curve-QUERY.png} (events/s per window of the first round, a line per engine) from {@code curve.csv} in {@code dir}. */
  public static void curves(Path dir, String title) throws IOException {
    Map<String, Map<String, List<double[]>>> byQuery = new LinkedHashMap<>();
    for (String[] r : read(dir.resolve("curve.csv"))) {
      if (!r[2].equals("1") || r[5].equals("NaN")) {
        continue;
      }
      byQuery.computeIfAbsent(r[0], q -> new LinkedHashMap<>()).computeIfAbsent(r[1], e -> new ArrayList<>())
          .add(new double[] {Long.parseLong(r[4]) / 1e6, Double.parseDouble(r[5])});
    }
    for (var q : byQuery.entrySet()) {
      Charts.lines(dir.resolve("curve-" + q.getKey() + ".png"), title + ", " + q.getKey() + ": events/s per 1M-event window",
          "events read (millions)", "events/s", q.getValue());
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
