package dev.tide.stream.queries;

import static dev.tide.stream.expr.Ex.and;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.ge;
import static dev.tide.stream.expr.Ex.in;
import static dev.tide.stream.expr.Ex.le;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.mod;
import static dev.tide.stream.expr.Ex.mul;

import dev.tide.proto.plan.Plan;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.plan.PlanException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The built-in Nexmark queries as plans. Each materializes one view named like the query. Windows:
 * tumbling 10 s (q7, q8), hopping 10 s every 2 s (q5). Stateful queries project their sources to
 * the columns they use first, so joins and windows carry and store no more (the plan builder does
 * not prune columns by itself); the compiler then has such sources generate only those columns
 * ({@code SourcePruning}). q7 takes each window's highest bids as a top with ties
 * ({@code maxRows}), whose state holds the leaders only, not every bid.
 */
public final class NexmarkQueries {
  public static final Duration TUMBLE = Duration.ofSeconds(10);
  public static final Duration HOP_SIZE = Duration.ofSeconds(10);
  public static final Duration HOP_SLIDE = Duration.ofSeconds(2);

  private NexmarkQueries() {}

  public static Set<String> names() {
    return new TreeSet<>(List.of("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"));
  }

  /** The plan of a query; {@code options} go to every Nexmark source (events, rate, seed, splits, ...). */
  public static Plan plan(String query, Map<String, String> options) {
    PlanBuilder b = new PlanBuilder(query);
    switch (query) {
      case "q0" -> b.source("nexmark", "bid", options).project("auction", "bidder", "price", "date_time", "_row_id").materialize("q0");
      case "q1" -> b.source("nexmark", "bid", options)
          .project(List.of(n("auction"), n("bidder"), new Named(mul(lit(0.908), col("price")), "price"), n("date_time"), n("_row_id")))
          .materialize("q1");
      case "q2" -> b.source("nexmark", "bid", options).filter(eq(mod(col("auction"), lit(123L)), lit(0L)))
          .project("auction", "price", "_row_id").materialize("q2");
      case "q3" -> {
        Stream auctions = b.source("nexmark", "auction", options).filter(eq(col("category"), lit(10L)));
        Stream persons = b.source("nexmark", "person", options).filter(in(col("state"), lit("OR"), lit("ID"), lit("CA")));
        auctions.join(persons, List.of("seller"), List.of("id")).project("name", "city", "state", "id").materialize("q3");
      }
      case "q4" -> {
        Stream auctions = b.source("nexmark", "auction", options).project("id", "category", "date_time", "expires");
        Stream bids = b.source("nexmark", "bid", options).project("auction", "price", "date_time");
        Stream winning = auctions.join(bids, List.of("id"), List.of("auction"))
            .filter(and(ge(col("date_time_r"), col("date_time")), le(col("date_time_r"), col("expires"))))
            .groupBy("id", "category").agg(Agg.max("price", "final"));
        winning.groupBy("category").agg(Agg.avg("final", "avg_final")).materialize("q4");
      }
      case "q5" -> {
        Stream counts = b.source("nexmark", "bid", options).project("auction", "date_time").hop("date_time", HOP_SIZE, HOP_SLIDE)
            .groupBy("auction", "window_start").agg(Agg.count("num"));
        Stream maxes = counts.groupBy("window_start").agg(Agg.max("num", "maxn"));
        counts.join(maxes, List.of("window_start"), List.of("window_start"))
            .filter(ge(col("num"), col("maxn")))
            .project("auction", "num", "window_start").materialize("q5");
      }
      case "q7" -> {
        b.source("nexmark", "bid", options).project("auction", "price", "bidder", "date_time", "_row_id")
            .tumble("date_time", TUMBLE).groupBy("window_start").maxRows("price")
            .project("auction", "price", "bidder", "date_time", "_row_id").materialize("q7");
      }
      case "q8" -> {
        Stream persons = b.source("nexmark", "person", options).tumble("date_time", TUMBLE)
            .groupBy("id", "name", "window_start").agg();
        Stream sellers = b.source("nexmark", "auction", options).tumble("date_time", TUMBLE)
            .groupBy("seller", "window_start").agg();
        persons.join(sellers, List.of("id", "window_start"), List.of("seller", "window_start"))
            .project("id", "name", "window_start").materialize("q8");
      }
      default -> throw new PlanException("unknown query '" + query + "'; built-in queries: " + names());
    }
    return b.build();
  }

  private static Named n(String column) {
    return new Named(col(column), column);
  }
}
