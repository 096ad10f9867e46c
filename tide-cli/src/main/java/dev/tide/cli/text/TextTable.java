package dev.tide.cli.text;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table: a header line and one line per row, columns separated by two spaces. A column
 * whose cells are all numbers is right-aligned, any other column left-aligned. Widths fit the widest
 * cell, so the whole table must be known before it is printed; live output with rows arriving one by
 * one uses {@link #fixed}.
 */
public final class TextTable {
  private static final String GAP = "  ";

  private TextTable() {}

  /** The lines of the table, header first. {@code indent} is prefixed to every line. */
  public static List<String> render(String indent, List<String> headers, List<List<String>> rows) {
    int n = headers.size();
    int[] width = new int[n];
    boolean[] numeric = new boolean[n];
    for (int c = 0; c < n; c++) {
      width[c] = headers.get(c).length();
      numeric[c] = !rows.isEmpty();
      for (List<String> row : rows) {
        width[c] = Math.max(width[c], row.get(c).length());
        numeric[c] &= Cells.isNumber(row.get(c));
      }
    }
    List<String> lines = new ArrayList<>();
    lines.add(line(indent, headers, width, numeric));
    for (List<String> row : rows) {
      lines.add(line(indent, row, width, numeric));
    }
    return lines;
  }

  /** One line of cells right-aligned to the given widths: the rows of a live table. */
  public static String fixed(String indent, int[] width, List<String> cells) {
    boolean[] right = new boolean[width.length];
    java.util.Arrays.fill(right, true);
    return line(indent, cells, width, right);
  }

  /** One line of cells padded to the given widths, right-aligned where {@code right} says so. */
  public static String fixed(String indent, int[] width, boolean[] right, List<String> cells) {
    return line(indent, cells, width, right);
  }

  private static String line(String indent, List<String> cells, int[] width, boolean[] right) {
    StringBuilder b = new StringBuilder(indent);
    for (int c = 0; c < cells.size(); c++) {
      String cell = cells.get(c);
      String pad = " ".repeat(Math.max(0, width[c] - cell.length()));
      if (c > 0) {
        b.append(GAP);
      }
      b.append(right[c] ? pad + cell : cell + pad);
    }
    return b.toString().stripTrailing();
  }
}
