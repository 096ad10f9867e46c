package dev.tide.stream.nexmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plain-Java reference results of Nexmark queries, computed from whole event lists with boxed values
 * and collections. Each query returns its final result sorted with {@link #ROW_ORDER}, so a streaming
 * result, once sorted the same way, can be compared with {@code isEqualTo}.
 *
 * <p>Input rows are laid out as {@link NexmarkGenerator#row} returns them ({@link NexmarkTable}
 * column order; BIGINT and TIMESTAMP as {@code Long}). Hand-made rows may leave unused columns null.
 */
public final class NexmarkReference {
  public static final long Q5_WINDOW_SIZE_MILLIS = 10_000;
  public static final long Q5_WINDOW_SLIDE_MILLIS = 2_000;
  public static final long Q7_WINDOW_SIZE_MILLIS = 10_000;
  public static final long Q8_WINDOW_SIZE_MILLIS = 10_000;

  // Column positions, matching NexmarkTable.
  static final int P_ID = 0;
  static final int P_NAME = 1;
  static final int P_CITY = 4;
  static final int P_STATE = 5;
  static final int P_DATE_TIME = 6;
  static final int A_ID = 0;
  static final int A_DATE_TIME = 5;
  static final int A_EXPIRES = 6;
  static final int A_SELLER = 7;
  static final int A_CATEGORY = 8;
  static final int B_AUCTION = 0;
  static final int B_BIDDER = 1;
  static final int B_PRICE = 2;
  static final int B_DATE_TIME = 5;
  static final int B_ROW_ID = 7;

  private static final Set<String> Q3_STATES = Set.of("OR", "ID", "CA");

  private NexmarkReference() {}

  /** All events with event id below a bound, split by table, in event id order. */
  public record Events(List<Object[]> persons, List<Object[]> auctions, List<Object[]> bids) {
    public static Events generate(NexmarkConfig config, long totalEvents) {
      NexmarkGenerator g = new NexmarkGenerator(config);
      return new Events(
          rows(g, NexmarkTable.PERSON, totalEvents),
          rows(g, NexmarkTable.AUCTION, totalEvents),
          rows(g, NexmarkTable.BID, totalEvents));
    }

    private static List<Object[]> rows(NexmarkGenerator g, NexmarkTable t, long totalEvents) {
      long n = NexmarkGenerator.ordinalsBelow(t, totalEvents);
      List<Object[]> out = new ArrayList<>((int) n);
      for (long i = 0; i < n; i++) {
        out.add(g.row(t, i));
      }
      return out;
    }
  }

  /** The result of query {@code name} ("q0" .. "q8" of those implemented) with default window sizes. */
  public static List<List<Object>> query(String name, Events ev) {
    return switch (name) {
      case "q0" -> q0(ev.bids());
      case "q1" -> q1(ev.bids());
      case "q2" -> q2(ev.bids());
      case "q3" -> q3(ev.auctions(), ev.persons());
      case "q4" -> q4(ev.auctions(), ev.bids());
      case "q5" -> q5(ev.bids());
      case "q7" -> q7(ev.bids());
      case "q8" -> q8(ev.persons(), ev.auctions());
      default -> throw new IllegalArgumentException("no reference for query '" + name
          + "'; known: q0, q1, q2, q3, q4, q5, q7, q8");
    };
  }

  public static List<List<Object>> query(String name, NexmarkConfig config, long totalEvents) {
    return query(name, Events.generate(config, totalEvents));
  }

  /** q0: {@code SELECT auction, bidder, price, date_time FROM bid}. */
  public static List<List<Object>> q0(List<Object[]> bids) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] b : bids) {
      out.add(Arrays.asList(b[B_AUCTION], b[B_BIDDER], b[B_PRICE], b[B_DATE_TIME]));
    }
    return sorted(out);
  }

  public static List<List<Object>> q0(NexmarkConfig config, long totalEvents) {
    return q0(Events.generate(config, totalEvents).bids());
  }

  /** q1: {@code SELECT auction, bidder, 0.908 * price, date_time FROM bid}; price as DOUBLE. */
  public static List<List<Object>> q1(List<Object[]> bids) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] b : bids) {
      double price = 0.908 * (double) asLong(b[B_PRICE]);
      out.add(Arrays.asList(b[B_AUCTION], b[B_BIDDER], price, b[B_DATE_TIME]));
    }
    return sorted(out);
  }

  public static List<List<Object>> q1(NexmarkConfig config, long totalEvents) {
    return q1(Events.generate(config, totalEvents).bids());
  }

  /** q2: {@code SELECT auction, price FROM bid WHERE auction % 123 = 0}. */
  public static List<List<Object>> q2(List<Object[]> bids) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] b : bids) {
      if (asLong(b[B_AUCTION]) % 123 == 0) {
        out.add(Arrays.asList(b[B_AUCTION], b[B_PRICE]));
      }
    }
    return sorted(out);
  }

  public static List<List<Object>> q2(NexmarkConfig config, long totalEvents) {
    return q2(Events.generate(config, totalEvents).bids());
  }

  /**
   * q3: {@code SELECT P.name, P.city, P.state, A.id FROM auction A JOIN person P ON A.seller = P.id
   * WHERE A.category = 10 AND P.state IN ('OR','ID','CA')}.
   */
  public static List<List<Object>> q3(List<Object[]> auctions, List<Object[]> persons) {
    Map<Long, List<Object[]>> personsById = new HashMap<>();
    for (Object[] p : persons) {
      if (Q3_STATES.contains((String) p[P_STATE])) {
        personsById.computeIfAbsent(asLong(p[P_ID]), k -> new ArrayList<>()).add(p);
      }
    }
    List<List<Object>> out = new ArrayList<>();
    for (Object[] a : auctions) {
      if (asLong(a[A_CATEGORY]) != 10) {
        continue;
      }
      for (Object[] p : personsById.getOrDefault(asLong(a[A_SELLER]), List.of())) {
        out.add(Arrays.asList(p[P_NAME], p[P_CITY], p[P_STATE], a[A_ID]));
      }
    }
    return sorted(out);
  }

  public static List<List<Object>> q3(NexmarkConfig config, long totalEvents) {
    Events ev = Events.generate(config, totalEvents);
    return q3(ev.auctions(), ev.persons());
  }

  /**
   * q4: {@code SELECT category, AVG(final) FROM (SELECT A.id, A.category, MAX(B.price) AS final FROM
   * auction A JOIN bid B ON A.id = B.auction WHERE B.date_time BETWEEN A.date_time AND A.expires GROUP
   * BY A.id, A.category) GROUP BY category}; AVG is {@code (double) exactLongSum / count}.
   */
  public static List<List<Object>> q4(List<Object[]> auctions, List<Object[]> bids) {
    Map<Long, List<Object[]>> bidsByAuction = new HashMap<>();
    for (Object[] b : bids) {
      bidsByAuction.computeIfAbsent(asLong(b[B_AUCTION]), k -> new ArrayList<>()).add(b);
    }
    // (A.id, A.category) -> max price; a list key keeps duplicates of hand-made auctions apart.
    Map<List<Long>, Long> finals = new HashMap<>();
    for (Object[] a : auctions) {
      long id = asLong(a[A_ID]);
      long start = asLong(a[A_DATE_TIME]);
      long expires = asLong(a[A_EXPIRES]);
      for (Object[] b : bidsByAuction.getOrDefault(id, List.of())) {
        long t = asLong(b[B_DATE_TIME]);
        if (t >= start && t <= expires) {
          finals.merge(List.of(id, asLong(a[A_CATEGORY])), asLong(b[B_PRICE]), Math::max);
        }
      }
    }
    Map<Long, long[]> sumCount = new HashMap<>();
    for (Map.Entry<List<Long>, Long> f : finals.entrySet()) {
      long[] sc = sumCount.computeIfAbsent(f.getKey().get(1), k -> new long[2]);
      sc[0] = Math.addExact(sc[0], f.getValue());
      sc[1]++;
    }
    List<List<Object>> out = new ArrayList<>();
    for (Map.Entry<Long, long[]> e : sumCount.entrySet()) {
      out.add(Arrays.asList(e.getKey(), (double) e.getValue()[0] / e.getValue()[1]));
    }
    return sorted(out);
  }

  public static List<List<Object>> q4(NexmarkConfig config, long totalEvents) {
    Events ev = Events.generate(config, totalEvents);
    return q4(ev.auctions(), ev.bids());
  }

  /** q5 with a 10 s window sliding every 2 s. */
  public static List<List<Object>> q5(List<Object[]> bids) {
    return q5(bids, Q5_WINDOW_SIZE_MILLIS, Q5_WINDOW_SLIDE_MILLIS);
  }

  /**
   * q5 (hot items): per hop window, the auctions with the most bids. A bid at time t is in every
   * window {@code [w, w + size)} with w a multiple of {@code slide} and {@code w <= t < w + size}.
   * Rows are {@code (auction, num, window_start)} for every (auction, window) whose count equals the
   * window's maximum count.
   */
  public static List<List<Object>> q5(List<Object[]> bids, long sizeMillis, long slideMillis) {
    if (sizeMillis <= 0 || slideMillis <= 0) {
      throw new IllegalArgumentException("q5 refused: window size " + sizeMillis + "ms and slide "
          + slideMillis + "ms must both be positive");
    }
    Map<List<Long>, Long> counts = new HashMap<>(); // (auction, window_start) -> num
    for (Object[] b : bids) {
      long t = asLong(b[B_DATE_TIME]);
      long auction = asLong(b[B_AUCTION]);
      for (long w = Math.floorDiv(t, slideMillis) * slideMillis; w > t - sizeMillis; w -= slideMillis) {
        counts.merge(List.of(auction, w), 1L, Long::sum);
      }
    }
    Map<Long, Long> maxByWindow = new HashMap<>();
    for (Map.Entry<List<Long>, Long> c : counts.entrySet()) {
      maxByWindow.merge(c.getKey().get(1), c.getValue(), Math::max);
    }
    List<List<Object>> out = new ArrayList<>();
    for (Map.Entry<List<Long>, Long> c : counts.entrySet()) {
      long w = c.getKey().get(1);
      if (c.getValue() >= maxByWindow.get(w)) {
        out.add(Arrays.asList(c.getKey().get(0), c.getValue(), w));
      }
    }
    return sorted(out);
  }

  public static List<List<Object>> q5(NexmarkConfig config, long totalEvents) {
    return q5(Events.generate(config, totalEvents).bids());
  }

  /** q7 with a 10 s tumbling window. */
  public static List<List<Object>> q7(List<Object[]> bids) {
    return q7(bids, Q7_WINDOW_SIZE_MILLIS);
  }

  /**
   * q7 (highest bid): the bids whose price equals the maximum price of their tumbling window. Rows are
   * {@code (auction, price, bidder, date_time)}.
   */
  public static List<List<Object>> q7(List<Object[]> bids, long sizeMillis) {
    requirePositive("q7", sizeMillis);
    Map<Long, Long> maxByWindow = new HashMap<>();
    for (Object[] b : bids) {
      maxByWindow.merge(windowStart(asLong(b[B_DATE_TIME]), sizeMillis), asLong(b[B_PRICE]), Math::max);
    }
    List<List<Object>> out = new ArrayList<>();
    for (Object[] b : bids) {
      long w = windowStart(asLong(b[B_DATE_TIME]), sizeMillis);
      if (asLong(b[B_PRICE]) == maxByWindow.get(w)) {
        out.add(Arrays.asList(b[B_AUCTION], b[B_PRICE], b[B_BIDDER], b[B_DATE_TIME]));
      }
    }
    return sorted(out);
  }

  public static List<List<Object>> q7(NexmarkConfig config, long totalEvents) {
    return q7(Events.generate(config, totalEvents).bids());
  }

  /** q8 with a 10 s tumbling window. */
  public static List<List<Object>> q8(List<Object[]> persons, List<Object[]> auctions) {
    return q8(persons, auctions, Q8_WINDOW_SIZE_MILLIS);
  }

  /**
   * q8 (new users who sell): {@code SELECT P.id, P.name, P.window_start FROM (SELECT DISTINCT id,
   * name, window_start FROM person) P JOIN (SELECT DISTINCT seller, window_start FROM auction) A ON
   * P.id = A.seller AND P.window_start = A.window_start}, tumbling windows of {@code sizeMillis}.
   */
  public static List<List<Object>> q8(List<Object[]> persons, List<Object[]> auctions, long sizeMillis) {
    requirePositive("q8", sizeMillis);
    Set<List<Object>> people = new LinkedHashSet<>();
    for (Object[] p : persons) {
      people.add(Arrays.asList(p[P_ID], p[P_NAME], windowStart(asLong(p[P_DATE_TIME]), sizeMillis)));
    }
    Set<List<Long>> sellers = new HashSet<>();
    for (Object[] a : auctions) {
      sellers.add(List.of(asLong(a[A_SELLER]), windowStart(asLong(a[A_DATE_TIME]), sizeMillis)));
    }
    List<List<Object>> out = new ArrayList<>();
    for (List<Object> p : people) {
      if (sellers.contains(List.of(asLong(p.get(0)), (Long) p.get(2)))) {
        out.add(p);
      }
    }
    return sorted(out);
  }

  public static List<List<Object>> q8(NexmarkConfig config, long totalEvents) {
    Events ev = Events.generate(config, totalEvents);
    return q8(ev.persons(), ev.auctions());
  }

  /** {@code floor(t / size) * size}, also for negative t. */
  public static long windowStart(long t, long sizeMillis) {
    return Math.floorDiv(t, sizeMillis) * sizeMillis;
  }

  // ---------------------------------------------------------------- ordering

  /**
   * Lexicographic order of rows: column by column, null first; values of one class by their natural
   * order; numbers of different classes by numeric value (then class name); other mixed classes by
   * class name. A shorter row that is a prefix of a longer one comes first.
   */
  public static final Comparator<List<Object>> ROW_ORDER = NexmarkReference::compareRows;

  /** Sorts {@code rows} in place with {@link #ROW_ORDER} and returns it. */
  public static List<List<Object>> sorted(List<List<Object>> rows) {
    rows.sort(ROW_ORDER);
    return rows;
  }

  public static int compareRows(List<Object> a, List<Object> b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = compareValues(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static int compareValues(Object x, Object y) {
    if (x == null || y == null) {
      return x == null ? (y == null ? 0 : -1) : 1;
    }
    if (x.getClass() == y.getClass() && x instanceof Comparable) {
      return ((Comparable) x).compareTo(y);
    }
    if (x instanceof Number nx && y instanceof Number ny) {
      int c = Double.compare(nx.doubleValue(), ny.doubleValue());
      if (c != 0) {
        return c;
      }
    }
    return x.getClass().getName().compareTo(y.getClass().getName());
  }

  private static long asLong(Object v) {
    return ((Number) v).longValue();
  }

  private static void requirePositive(String query, long sizeMillis) {
    if (sizeMillis <= 0) {
      throw new IllegalArgumentException(query + " refused: window size " + sizeMillis + "ms must be positive");
    }
  }
}
