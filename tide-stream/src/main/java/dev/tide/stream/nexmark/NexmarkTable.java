package dev.tide.stream.nexmark;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;

/**
 * The three Nexmark event streams and their column layouts. Column order is part of the contract:
 * {@link NexmarkGenerator#appendRow} and {@link NexmarkGenerator#row} write the columns in this order, and
 * {@link NexmarkGenerator#batch} takes column indexes in it.
 * TIMESTAMP columns hold milliseconds since the Unix epoch.
 */
public enum NexmarkTable {
  /** A new user: {@code id} is unique and dense from {@link NexmarkGenerator#FIRST_PERSON_ID}. */
  PERSON(Schema.of(
      new Field("id", DataType.BIGINT),
      new Field("name", DataType.VARCHAR),
      new Field("email_address", DataType.VARCHAR),
      new Field("credit_card", DataType.VARCHAR),
      new Field("city", DataType.VARCHAR),
      new Field("state", DataType.VARCHAR),
      new Field("date_time", DataType.TIMESTAMP),
      new Field("extra", DataType.VARCHAR))),

  /** A new auction: {@code id} is unique and dense from {@link NexmarkGenerator#FIRST_AUCTION_ID}. */
  AUCTION(Schema.of(
      new Field("id", DataType.BIGINT),
      new Field("item_name", DataType.VARCHAR),
      new Field("description", DataType.VARCHAR),
      new Field("initial_bid", DataType.BIGINT),
      new Field("reserve", DataType.BIGINT),
      new Field("date_time", DataType.TIMESTAMP),
      new Field("expires", DataType.TIMESTAMP),
      new Field("seller", DataType.BIGINT),
      new Field("category", DataType.BIGINT),
      new Field("extra", DataType.VARCHAR))),

  /** A bid; {@code _row_id} is the global event id, unique, and serves as the bid's key. */
  BID(Schema.of(
      new Field("auction", DataType.BIGINT),
      new Field("bidder", DataType.BIGINT),
      new Field("price", DataType.BIGINT),
      new Field("channel", DataType.VARCHAR),
      new Field("url", DataType.VARCHAR),
      new Field("date_time", DataType.TIMESTAMP),
      new Field("extra", DataType.VARCHAR),
      new Field("_row_id", DataType.BIGINT)));

  private final Schema schema;

  NexmarkTable(Schema schema) {
    this.schema = schema;
  }

  public Schema schema() {
    return schema;
  }

  /** The SQL name of the stream: {@code person}, {@code auction} or {@code bid}. */
  public String tableName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
