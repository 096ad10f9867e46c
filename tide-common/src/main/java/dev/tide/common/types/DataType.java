package dev.tide.common.types;

/**
 * Column types. TIMESTAMP is milliseconds since the Unix epoch in a {@code long}; INT is 32-bit,
 * BIGINT 64-bit, DOUBLE IEEE 754, VARCHAR UTF-8 text.
 */
public enum DataType {
  BOOLEAN,
  INT,
  BIGINT,
  DOUBLE,
  VARCHAR,
  TIMESTAMP;

  public boolean isNumeric() {
    return this == INT || this == BIGINT || this == DOUBLE;
  }

  /** Types stored in a {@code long[]} column. */
  public boolean isLongBacked() {
    return this == BIGINT || this == TIMESTAMP;
  }

  public String sqlName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
