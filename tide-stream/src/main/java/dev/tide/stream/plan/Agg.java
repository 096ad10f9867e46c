package dev.tide.stream.plan;

import dev.tide.proto.plan.AggKind;

/** An aggregate call as a user writes it: kind, input column by name (null for count(*)), output name. */
public record Agg(AggKind kind, String column, String name) {
  public static Agg count(String name) {
    return new Agg(AggKind.COUNT_STAR, null, name);
  }

  public static Agg count(String column, String name) {
    return new Agg(AggKind.COUNT, column, name);
  }

  public static Agg sum(String column, String name) {
    return new Agg(AggKind.SUM, column, name);
  }

  public static Agg min(String column, String name) {
    return new Agg(AggKind.MIN, column, name);
  }

  public static Agg max(String column, String name) {
    return new Agg(AggKind.MAX, column, name);
  }

  /** COUNT(DISTINCT column): distinct non-null values of the group. */
  public static Agg countDistinct(String column, String name) {
    return new Agg(AggKind.COUNT_DISTINCT, column, name);
  }

  public static Agg avg(String column, String name) {
    return new Agg(AggKind.AVG, column, name);
  }
}
