package dev.tide.sql;

/**
 * A statement refused or failed, answered to the client as an {@code ErrorResponse}: SQLSTATE,
 * one-line message, and the 1-based character position in the statement text (0: none).
 */
public final class SqlException extends RuntimeException {
  public static final String SYNTAX = "42601";
  public static final String UNDEFINED_TABLE = "42P01";
  public static final String UNDEFINED_COLUMN = "42703";
  public static final String DUPLICATE_OBJECT = "42710";
  public static final String DEPENDENT_OBJECTS = "2BP01";
  public static final String NOT_SUPPORTED = "0A000";
  public static final String INVALID_PARAMETER = "22023";
  public static final String DATATYPE_MISMATCH = "42804";
  public static final String INVALID_PASSWORD = "28P01";
  public static final String QUERY_CANCELED = "57014";
  public static final String INTERNAL = "XX000";
  public static final String PROTOCOL = "08P01";
  public static final String OBJECT_STATE = "55000";

  private final String sqlState;
  private final int position;

  public SqlException(String sqlState, String message) {
    this(sqlState, message, 0);
  }

  public SqlException(String sqlState, String message, int position) {
    super(message);
    this.sqlState = sqlState;
    this.position = position;
  }

  public static SqlException notSupported(String what) {
    return new SqlException(NOT_SUPPORTED, "not supported: " + what);
  }

  public String sqlState() {
    return sqlState;
  }

  /** 1-based character position in the statement, 0 when the error has none. */
  public int position() {
    return position;
  }

  /** The same error at {@code offset} characters further into the client's text. */
  public SqlException shifted(int offset) {
    return position == 0 || offset == 0 ? this : new SqlException(sqlState, getMessage(), position + offset);
  }
}
