package dev.tide.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** PNG charts of benchmark results, drawn with XChart from the same figures the CSV holds. */
public final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 500;

  private Charts() {}

  /**
   * A grouped bar chart: one group per category, one bar per series.
   *
   * @param series series name to values, one per category, in category order
   */
  public static void bars(Path png, String title, String xTitle, String yTitle, List<String> categories,
      Map<String, List<Double>> series, boolean logarithmic) throws IOException {
    System.setProperty("java.awt.headless", "true");
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setPlotGridVerticalLinesVisible(false);
    chart.getStyler().setLabelsVisible(false);
    if (!logarithmic) {
      chart.getStyler().setYAxisDecimalPattern("#,###");
    }
    if (logarithmic) {
      chart.getStyler().setYAxisLogarithmic(true);
      chart.getStyler().setYAxisMin(1.0); // bars start at 0 unless told, which a log axis cannot show
    }
    series.forEach((name, values) -> chart.addSeries(name, categories, values));
    String file = png.toString();
    BitmapEncoder.saveBitmap(chart, file.endsWith(".png") ? file.substring(0, file.length() - 4) : file,
        BitmapEncoder.BitmapFormat.PNG);
  }

  /**
   * A line chart, one line per series.
   *
   * @param series series name to its points {x, y}, in x order
   */
  public static void lines(Path png, String title, String xTitle, String yTitle, Map<String, List<double[]>> series) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    chart.getStyler().setYAxisMin(0.0);
    series.forEach((name, points) -> chart.addSeries(name, points.stream().mapToDouble(p -> p[0]).toArray(),
        points.stream().mapToDouble(p -> p[1]).toArray()));
    String file = png.toString();
    BitmapEncoder.saveBitmap(chart, file.endsWith(".png") ? file.substring(0, file.length() - 4) : file,
        BitmapEncoder.BitmapFormat.PNG);
  }
}
