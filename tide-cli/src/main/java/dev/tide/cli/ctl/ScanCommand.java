package dev.tide.cli.ctl;

import dev.tide.cli.text.TextTable;
import dev.tide.proto.admin.ScanRequest;
import dev.tide.proto.admin.ScanResponse;
import dev.tide.proto.admin.ScanRow;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code tide ctl scan VIEW}: the committed rows of a materialized view, in key order. */
@Command(name = "scan", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prints the committed rows of a materialized view, in primary-key order.",
        "Timestamps print in ISO-8601 UTC; --json gives them as epoch milliseconds."})
final class ScanCommand extends AdminCommand {
  @Parameters(paramLabel = "VIEW", description = "Materialized view name (a built-in query's view is named like the query).")
  String view;

  @Option(names = "--limit", defaultValue = "20", description = "Rows to print, 0 for all (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  void validate() {
    if (limit < 0) {
      throw new ParameterException(spec.commandLine(), "invalid value for option '--limit': " + limit + " (must be 0 or more)");
    }
  }

  @Override
  void run(AdminClient client, PrintWriter out) {
    ScanResponse r = client.views().scan(ScanRequest.newBuilder().setView(view).setLimit(limit).build());
    List<List<String>> rows = new ArrayList<>();
    for (ScanRow row : r.getRowsList()) {
      List<String> cells = new ArrayList<>(row.getValuesList());
      for (int c = 0; c < cells.size() && c < r.getColumnTypesCount(); c++) {
        if (r.getColumnTypes(c).equals("TIMESTAMP")) {
          cells.set(c, iso(cells.get(c)));
        }
      }
      rows.add(cells);
    }
    out.println("view " + view + ": " + r.getTotalRows() + " rows" + (r.getRowsCount() < r.getTotalRows() ? ", first " + r.getRowsCount() : ""));
    TextTable.render("  ", r.getColumnsList(), rows).forEach(out::println);
  }

  /** A timestamp cell (epoch milliseconds) in ISO-8601 UTC, e.g. 2015-07-15T00:00:10Z; null and non-numbers as they are. */
  static String iso(String epochMs) {
    try {
      return java.time.Instant.ofEpochMilli(Long.parseLong(epochMs)).toString();
    } catch (NumberFormatException e) {
      return epochMs;
    }
  }
}
