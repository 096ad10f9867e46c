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

import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.Plan;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Bound;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.plan.PlanException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Hand-built plans of Nexmark queries for the compiler's and operators' tests, which cannot depend on
 * the SQL front end. The product's definitions of the queries are the SQL files ({@code
 * dev.tide.sql.NexmarkJobs}); these plans have the shapes the SQL planner produces for them (q5 and q7
 * as group tops, q5 and q8 emitting on window close) without its renames. Each ends in one {@link
 * Terminal} named like the query. Windows: tumbling 10 s (q7, q8), hopping 10 s every 2 s (q5).
 */
public final class NexmarkPlans {
  public static final Duration TUMBLE = Duration.ofSeconds(10);
  public static final Duration HOP_SIZE = Duration.ofSeconds(10);
  public static final Duration HOP_SLIDE = Duration.ofSeconds(2);

  private NexmarkPlans() {}

  public static Set<String> names() {
    return new TreeSet<>(List.of("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8"));
  }

  /** How a query's result stream ends; named like the query. */
  @FunctionalInterface
  public interface Terminal {
    /** A materialized view: the query's result rows, durable and scannable. */
    Terminal MATERIALIZE = (result, name) -> result.materialize(name);
    /** A digest sink: only the fingerprint of the result rows (the benchmarks' blackhole sink). */
    Terminal DIGEST = (result, name) -> result.digest(name);

    void end(Stream result, String name);
  }

  /** The plan of a query ending in a view; {@code options} go to every Nexmark source (events, rate, seed, splits, ...). */
  public static Plan plan(String query, Map<String, String> options) {
    return plan(query, options, Terminal.MATERIALIZE);
  }

  /** The plan of a query ending in {@code terminal}. */
  public static Plan plan(String query, Map<String, String> options, Terminal terminal) {
    return plan(query, query, options, terminal);
  }

  /** The plan of a query as a job named {@code name}, ending in {@code terminal} of the same name. */
  public static Plan plan(String query, String name, Map<String, String> options, Terminal terminal) {
    PlanBuilder b = new PlanBuilder(name);
    Stream result = switch (query) {
      case "q0" -> b.source("nexmark", "bid", options).project("auction", "bidder", "price", "date_time");
      case "q1" -> b.source("nexmark", "bid", options)
          .project(List.of(n("auction"), n("bidder"), new Named(mul(lit(0.908), col("price")), "price"), n("date_time")));
      case "q2" -> b.source("nexmark", "bid", options).filter(eq(mod(col("auction"), lit(123L)), lit(0L)))
          .project("auction", "price");
      case "q3" -> {
        Stream auctions = b.source("nexmark", "auction", options).filter(eq(col("category"), lit(10L)));
        Stream persons = b.source("nexmark", "person", options).filter(in(col("state"), lit("OR"), lit("ID"), lit("CA")));
        yield auctions.join(persons, List.of("seller"), List.of("id")).project("name", "city", "state", "id");
      }
      case "q4" -> {
        Stream auctions = b.source("nexmark", "auction", options).project("id", "category", "date_time", "expires");
        Stream bids = b.source("nexmark", "bid", options).project("auction", "price", "date_time");
        // A bid matches an auction only within [date_time, expires]: the join forgets an auction once
        // the bids' watermark passes its expiry, and a bid once the auctions' watermark passes it.
        Stream winning = auctions.join(bids, List.of("id"), List.of("auction"), List.of(), JoinType.INNER,
                List.of(new Bound(true, "expires", "date_time"), new Bound(false, "date_time", "date_time")))
            .filter(and(ge(col("date_time_r"), col("date_time")), le(col("date_time_r"), col("expires"))))
            .groupBy("id", "category").agg(Agg.max("price", "final"));
        yield winning.groupBy("category").agg(Agg.avg("final", "avg_final"));
      }
      case "q5" -> {
        // Each window's counts are emitted once, when the watermark closes the window, so the group
        // top over them keeps each window's leaders only; both forget a window once it has closed.
        Stream counts = b.source("nexmark", "bid", options).project("auction", "date_time").hop("date_time", HOP_SIZE, HOP_SLIDE)
            .groupBy("auction", "window_start").emitOnWindowClose("window_start").agg(Agg.count("num"));
        yield counts.groupBy("window_start").maxRows("num").project("auction", "num", "window_start");
      }
      case "q7" -> {
        yield b.source("nexmark", "bid", options).project("auction", "price", "bidder", "date_time", "_row_id")
            .tumble("date_time", TUMBLE).groupBy("window_start").maxRows("price")
            .project("auction", "price", "bidder", "date_time");
      }
      case "q8" -> {
        // Each window's persons and sellers are emitted once, when the watermark closes the window;
        // the join forgets a window once both sides' watermarks passed it.
        Stream persons = b.source("nexmark", "person", options).tumble("date_time", TUMBLE)
            .groupBy("id", "name", "window_start").emitOnWindowClose("window_start").agg();
        Stream sellers = b.source("nexmark", "auction", options).tumble("date_time", TUMBLE)
            .groupBy("seller", "window_start").emitOnWindowClose("window_start").agg();
        yield persons.join(sellers, List.of("id", "window_start"), List.of("seller", "window_start"))
            .project("id", "name", "window_start");
      }
      default -> throw new PlanException("unknown query '" + query + "'; built-in queries: " + names());
    };
    terminal.end(result, name);
    return b.build();
  }

  private static Named n(String column) {
    return new Named(col(column), column);
  }
}
