package dev.tide.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What {@code tide bench autoscale} saw, one point a second: the load the trace schedules, the events
 * the source read, its backlog, the actors of each fragment, the compute nodes, and the actions with
 * their reasons. Written as CSV and drawn as a PNG (load on the left axis, actors and nodes on the right).
 */
public final class AutoscaleTimeline {
  /**
   * One second of the run.
   *
   * @param actors actors per fragment id
   */
  public record Point(double seconds, long scheduledRate, long eventsPerSecond, long backlog, SortedMap<Integer, Integer> actors,
      int nodes) {}

  /** An action of the autoscaler or the compute pool. */
  public record Action(double seconds, String who, String reason) {}

  private final List<Point> points = new ArrayList<>();
  private final List<Action> actions = new ArrayList<>();

  public void add(Point p) {
    points.add(p);
  }

  public void add(Action a) {
    actions.add(a);
  }

  public List<Point> points() {
    return List.copyOf(points);
  }

  public List<Action> actions() {
    return List.copyOf(actions);
  }

  /** {@code seconds,scheduled_rate,events_per_second,backlog,nodes,actors_f<id>...} then the actions as comment lines. */
  public void writeCsv(Path csv) throws IOException {
    SortedMap<Integer, Boolean> fragments = new TreeMap<>();
    points.forEach(p -> p.actors().keySet().forEach(f -> fragments.put(f, true)));
    StringBuilder b = new StringBuilder("seconds,scheduled_rate,events_per_second,backlog,nodes");
    fragments.keySet().forEach(f -> b.append(",actors_f").append(f));
    b.append('\n');
    for (Point p : points) {
      b.append(String.format(Locale.ROOT, "%.1f,%d,%d,%d,%d", p.seconds(), p.scheduledRate(), p.eventsPerSecond(), p.backlog(), p.nodes()));
      fragments.keySet().forEach(f -> b.append(',').append(p.actors().getOrDefault(f, 0)));
      b.append('\n');
    }
    for (Action a : actions) {
      b.append(String.format(Locale.ROOT, "# %.1f %s: %s%n", a.seconds(), a.who(), a.reason().replace('\n', ' ')));
    }
    Files.createDirectories(csv.toAbsolutePath().getParent());
    Files.writeString(csv, b);
  }

  /** The chart: scheduled rate, events/s and backlog (left), actors per fragment and nodes (right), actions as markers. */
  public void writePng(Path png, String title) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = new XYChartBuilder().width(1100).height(550).title(title).xAxisTitle("seconds").yAxisTitle("events/s, backlog")
        .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    chart.getStyler().setMarkerSize(0);
    chart.setYAxisGroupTitle(1, "actors, nodes");
    chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
    double[] x = points.stream().mapToDouble(Point::seconds).toArray();
    if (x.length == 0) {
      return;
    }
    line(chart, "scheduled rate", x, points.stream().mapToDouble(Point::scheduledRate).toArray(), 0);
    line(chart, "events/s read", x, points.stream().mapToDouble(Point::eventsPerSecond).toArray(), 0);
    line(chart, "backlog (events)", x, points.stream().mapToDouble(Point::backlog).toArray(), 0);
    SortedMap<Integer, Boolean> fragments = new TreeMap<>();
    points.forEach(p -> p.actors().keySet().forEach(f -> fragments.put(f, true)));
    for (int f : fragments.keySet()) {
      line(chart, "actors of fragment " + f, x, points.stream().mapToDouble(p -> p.actors().getOrDefault(f, 0)).toArray(), 1);
    }
    line(chart, "compute nodes", x, points.stream().mapToDouble(Point::nodes).toArray(), 1);
    if (!actions.isEmpty()) {
      double top = points.stream().mapToDouble(p -> Math.max(p.scheduledRate(), Math.max(p.eventsPerSecond(), p.backlog()))).max()
          .orElse(1);
      XYSeries s = chart.addSeries("actions (see the log)", actions.stream().mapToDouble(Action::seconds).toArray(),
          actions.stream().mapToDouble(a -> top).toArray());
      s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
      s.setMarker(SeriesMarkers.TRIANGLE_DOWN);
      s.setYAxisGroup(0);
    }
    Files.createDirectories(png.toAbsolutePath().getParent());
    String file = png.toString();
    BitmapEncoder.saveBitmap(chart, file.endsWith(".png") ? file.substring(0, file.length() - 4) : file, BitmapEncoder.BitmapFormat.PNG);
  }

  private static void line(XYChart chart, String name, double[] x, double[] y, int group) {
    XYSeries s = chart.addSeries(name, x, y);
    s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    s.setMarker(SeriesMarkers.NONE);
    s.setYAxisGroup(group);
  }
}
