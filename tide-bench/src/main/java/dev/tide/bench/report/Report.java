package dev.tide.bench.report;

import dev.tide.cli.text.TextTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A table of results printed as text, and written as CSV and as a Markdown table (for the docs). */
public record Report(List<String> headers, List<List<String>> rows) {
  public void print(PrintWriter out) {
    TextTable.render("", headers, rows).forEach(out::println);
    out.flush();
  }

  public void writeCsv(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(csvLine(headers));
    rows.forEach(r -> lines.add(csvLine(r)));
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  public void writeMarkdown(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("| " + String.join(" | ", headers) + " |");
    lines.add("|" + "---|".repeat(headers.size()));
    rows.forEach(r -> lines.add("| " + String.join(" | ", r) + " |"));
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  private static String csvLine(List<String> cells) {
    List<String> quoted = new ArrayList<>();
    for (String c : cells) {
      quoted.add(c.contains(",") || c.contains("\"") ? "\"" + c.replace("\"", "\"\"") + "\"" : c);
    }
    return String.join(",", quoted);
  }
}
