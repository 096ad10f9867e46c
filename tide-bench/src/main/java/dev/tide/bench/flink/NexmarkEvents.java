package dev.tide.bench.flink;

import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;

/**
 * The three Nexmark events as Flink POJOs (public fields, no-argument constructors), filled from
 * {@link NexmarkGenerator#row}: the same values, column for column, that Tide's source writes into
 * its chunks. Timestamps are epoch milliseconds.
 */
public final class NexmarkEvents {
  private NexmarkEvents() {}

  /** A new user. */
  public static final class Person {
    public long id;
    public String name;
    public String emailAddress;
    public String creditCard;
    public String city;
    public String state;
    public long dateTime;
    public String extra;

    public Person() {}

    static Person of(NexmarkGenerator g, long ordinal) {
      Object[] r = g.row(NexmarkTable.PERSON, ordinal);
      Person p = new Person();
      p.id = (Long) r[0];
      p.name = (String) r[1];
      p.emailAddress = (String) r[2];
      p.creditCard = (String) r[3];
      p.city = (String) r[4];
      p.state = (String) r[5];
      p.dateTime = (Long) r[6];
      p.extra = (String) r[7];
      return p;
    }
  }

  /** A new auction. */
  public static final class Auction {
    public long id;
    public String itemName;
    public String description;
    public long initialBid;
    public long reserve;
    public long dateTime;
    public long expires;
    public long seller;
    public long category;
    public String extra;

    public Auction() {}

    /** A copy, for state: with object reuse on, a function must not keep its input record. */
    public Auction copy() {
      Auction a = new Auction();
      a.id = id;
      a.itemName = itemName;
      a.description = description;
      a.initialBid = initialBid;
      a.reserve = reserve;
      a.dateTime = dateTime;
      a.expires = expires;
      a.seller = seller;
      a.category = category;
      a.extra = extra;
      return a;
    }

    static Auction of(NexmarkGenerator g, long ordinal) {
      Object[] r = g.row(NexmarkTable.AUCTION, ordinal);
      Auction a = new Auction();
      a.id = (Long) r[0];
      a.itemName = (String) r[1];
      a.description = (String) r[2];
      a.initialBid = (Long) r[3];
      a.reserve = (Long) r[4];
      a.dateTime = (Long) r[5];
      a.expires = (Long) r[6];
      a.seller = (Long) r[7];
      a.category = (Long) r[8];
      a.extra = (String) r[9];
      return a;
    }
  }

  /** A bid; {@code rowId} is the global event id, Tide's {@code _row_id}. */
  public static final class Bid {
    public long auction;
    public long bidder;
    public long price;
    public String channel;
    public String url;
    public long dateTime;
    public String extra;
    public long rowId;

    public Bid() {}

    /** A copy, for state: with object reuse on, a function must not keep its input record. */
    public Bid copy() {
      Bid b = new Bid();
      b.auction = auction;
      b.bidder = bidder;
      b.price = price;
      b.channel = channel;
      b.url = url;
      b.dateTime = dateTime;
      b.extra = extra;
      b.rowId = rowId;
      return b;
    }

    static Bid of(NexmarkGenerator g, long ordinal) {
      Object[] r = g.row(NexmarkTable.BID, ordinal);
      Bid b = new Bid();
      b.auction = (Long) r[0];
      b.bidder = (Long) r[1];
      b.price = (Long) r[2];
      b.channel = (String) r[3];
      b.url = (String) r[4];
      b.dateTime = (Long) r[5];
      b.extra = (String) r[6];
      b.rowId = (Long) r[7];
      return b;
    }
  }
}
