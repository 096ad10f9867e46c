package dev.tide.cli.playground;

import java.util.List;

/**
 * A query the playground runs and the view it materializes (named like the query).
 *
 * @param query a built-in Nexmark query, also the name of its job and view
 * @param title what the view holds, one line
 * @param newestFirst columns the summary sorts the view's rows by, descending, to show the latest rows
 */
public record PlaygroundView(String query, String title, List<String> newestFirst) {
  /** The views of the standard playground: q5 (hot items) and q7 (highest bid). */
  public static List<PlaygroundView> standard() {
    return List.of(
        new PlaygroundView("q5", "hot items: the auctions with the most bids in each 10s window sliding by 2s",
            List.of("starttime", "num", "auction")),
        new PlaygroundView("q7", "highest bid in each 10s tumbling window", List.of("date_time", "auction")));
  }
}
