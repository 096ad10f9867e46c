package dev.tide.cli.playground;

import dev.tide.cli.text.Cells;
import dev.tide.cli.text.TextTable;
import java.util.ArrayList;
import java.util.List;

/**
 * The live table of the playground: one line per second with the committed epoch, the latest
 * barrier latency, recoveries so far, per view its events per second and row count, the
 * registered optimizer instances and the compaction tasks waiting or running (the optimizers' load). Steps of the script and the scale keeper's decisions print as lines
 * of their own between the rows.
 */
final class ProgressTable {
  private static final String INDENT = "  ";
  private final List<PlaygroundView> views;
  private final int[] width;

  ProgressTable(List<PlaygroundView> views) {
    this.views = views;
    List<String> h = headers();
    this.width = new int[h.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = Math.max(h.get(i).length(), i == 0 ? 5 : 7);
    }
  }

  private List<String> headers() {
    List<String> h = new ArrayList<>(List.of("time", "epoch", "barrier", "recov"));
    for (PlaygroundView v : views) {
      h.add(v.query() + " events/s");
    }
    for (PlaygroundView v : views) {
      h.add(v.query() + " rows");
    }
    h.add("optimizers");
    h.add("opt tasks");
    return h;
  }

  String header() {
    return TextTable.fixed(INDENT, width, headers());
  }

  String row(Sample earlier, Sample now) {
    List<String> cells = new ArrayList<>();
    cells.add(seconds(now.elapsedNanos()));
    cells.add(String.valueOf(now.stats().committedEpoch()));
    cells.add(now.stats().barrierLatencyMs() + "ms");
    cells.add(String.valueOf(now.stats().recoveries()));
    for (PlaygroundView v : views) {
      cells.add(Cells.count(Math.round(now.eventsPerSecond(v.query(), earlier))));
    }
    for (PlaygroundView v : views) {
      cells.add(Cells.count(now.rows(v.query())));
    }
    cells.add(String.valueOf(now.optimizers()));
    cells.add(String.valueOf(now.compactionTasks()));
    return TextTable.fixed(INDENT, width, cells);
  }

  /** A line for a step of the script, aligned with the time column. */
  String step(long elapsedNanos, String text) {
    String time = seconds(elapsedNanos);
    return INDENT + " ".repeat(Math.max(0, width[0] - time.length())) + time + "  >> " + text;
  }

  static String seconds(long nanos) {
    return Math.round(nanos / 1e9) + "s";
  }
}
