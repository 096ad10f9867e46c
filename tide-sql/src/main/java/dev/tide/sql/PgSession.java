package dev.tide.sql;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One client connection speaking the PostgreSQL v3 protocol: startup (SSL and GSS encryption
 * requests answered 'N', CancelRequest), cleartext password auth when a password is set, the simple
 * query protocol and the extended one (Parse, Bind, Describe, Execute, Sync, Close, Flush).
 *
 * <p>Extended query: a portal runs its statement at its first Describe or Execute and keeps the
 * result, so the row description Describe sends is the one Execute's rows follow. Parameters are
 * substituted into the text as literals at Bind. After an error the session skips messages until
 * Sync, as the protocol says. Thread-safety: confined to its connection's thread, except {@link
 * #cancel()}.
 */
final class PgSession {
  interface Canceller {
    void cancel(int pid, int secret);
  }

  private static final int SSL_REQUEST = 80877103;
  private static final int GSS_REQUEST = 80877104;
  private static final int CANCEL_REQUEST = 80877102;
  private static final int PROTOCOL_3 = 196608;

  private final Socket socket;
  private final SqlEngine engine;
  private final Optional<String> password;
  private final int pid;
  private final int secret;
  private final Canceller canceller;
  private DataInputStream in;
  private DataOutputStream out;
  private final Map<String, Prepared> statements = new HashMap<>();
  private final Map<String, Portal> portals = new HashMap<>();
  private volatile boolean canceled;

  private record Prepared(String sql, int[] paramTypes) {}

  private static final class Portal {
    final String sql;
    final short[] resultFormats;
    Result result;
    int sent;

    Portal(String sql, short[] resultFormats) {
      this.sql = sql;
      this.resultFormats = resultFormats;
    }
  }

  PgSession(Socket socket, SqlEngine engine, Optional<String> password, int pid, int secret, Canceller canceller) {
    this.socket = socket;
    this.engine = engine;
    this.password = password;
    this.pid = pid;
    this.secret = secret;
    this.canceller = canceller;
  }

  int secret() {
    return secret;
  }

  void cancel() {
    canceled = true;
  }

  void run() throws IOException {
    in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    if (!startup()) {
      return;
    }
    boolean skipToSync = false;
    while (true) {
      int type;
      try {
        type = in.readUnsignedByte();
      } catch (EOFException e) {
        return;
      }
      byte[] body = new byte[in.readInt() - 4];
      in.readFully(body);
      ByteBuffer b = ByteBuffer.wrap(body);
      if (type == 'X') {
        return;
      }
      if (skipToSync && type != 'S') {
        continue;
      }
      canceled = false;
      try {
        switch (type) {
          case 'Q' -> simpleQuery(cstring(b));
          case 'P' -> parse(b);
          case 'B' -> bind(b);
          case 'D' -> describe(b);
          case 'E' -> execute(b);
          case 'C' -> close(b);
          case 'H' -> out.flush();
          case 'S' -> {
            skipToSync = false;
            readyForQuery();
          }
          default -> throw new SqlException(SqlException.PROTOCOL, "protocol violation: unknown message type '" + (char) type + "'");
        }
      } catch (RuntimeException e) {
        error(e instanceof SqlException s ? s : internal(e));
        if (type == 'Q') {
          readyForQuery();
        } else {
          skipToSync = true;
          out.flush();
        }
      }
    }
  }

  /** Startup phase; false when the connection ends in it (cancel request, bad password). */
  private boolean startup() throws IOException {
    while (true) {
      int len = in.readInt();
      int code = in.readInt();
      if (code == SSL_REQUEST || code == GSS_REQUEST) {
        out.write('N');
        out.flush();
        continue;
      }
      if (code == CANCEL_REQUEST) {
        canceller.cancel(in.readInt(), in.readInt());
        return false;
      }
      byte[] rest = new byte[len - 8];
      in.readFully(rest);
      if (code != PROTOCOL_3) {
        error(new SqlException(SqlException.PROTOCOL, "unsupported frontend protocol " + (code >> 16) + "." + (code & 0xffff)
            + ": this server speaks protocol 3.0"));
        out.flush();
        return false;
      }
      Map<String, String> params = new HashMap<>();
      ByteBuffer b = ByteBuffer.wrap(rest);
      while (b.hasRemaining()) {
        String k = cstring(b);
        if (k.isEmpty()) {
          break;
        }
        params.put(k, cstring(b));
      }
      if (password.isPresent()) {
        message('R', w -> w.writeInt(3));
        out.flush();
        int type = in.readUnsignedByte();
        byte[] body = new byte[in.readInt() - 4];
        in.readFully(body);
        String given = type == 'p' ? cstring(ByteBuffer.wrap(body)) : "";
        if (!MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), password.get().getBytes(StandardCharsets.UTF_8))) {
          error(new SqlException(SqlException.INVALID_PASSWORD, "password authentication failed for user '"
              + params.getOrDefault("user", "") + "': the password is the cluster token (tide meta --token-file)"));
          out.flush();
          return false;
        }
      }
      message('R', w -> w.writeInt(0));
      parameter("server_version", "15.0");
      parameter("server_encoding", "UTF8");
      parameter("client_encoding", "UTF8");
      parameter("DateStyle", "ISO, MDY");
      parameter("TimeZone", "UTC");
      parameter("integer_datetimes", "on");
      parameter("standard_conforming_strings", "on");
      parameter("is_superuser", "on");
      parameter("application_name", params.getOrDefault("application_name", ""));
      message('K', w -> {
        w.writeInt(pid);
        w.writeInt(secret);
      });
      readyForQuery();
      return true;
    }
  }

  private void simpleQuery(String text) throws IOException {
    List<SqlEngine.Statement> stmts = SqlEngine.split(text);
    if (stmts.isEmpty()) {
      message('I', w -> {});
      readyForQuery();
      return;
    }
    for (SqlEngine.Statement s : stmts) {
      Result r;
      try {
        r = engine.execute(s.text());
      } catch (SqlException e) {
        throw e.shifted(s.offset());
      }
      if (r.hasRows()) {
        rowDescription(r, new short[0]);
      }
      sendRows(r, 0, new short[0], 0);
    }
    readyForQuery();
  }

  private void parse(ByteBuffer b) throws IOException {
    String name = cstring(b);
    String sql = cstring(b);
    int[] types = new int[b.getShort()];
    for (int i = 0; i < types.length; i++) {
      types[i] = b.getInt();
    }
    statements.put(name, new Prepared(sql, types));
    message('1', w -> {});
  }

  private void bind(ByteBuffer b) throws IOException {
    String portal = cstring(b);
    String name = cstring(b);
    Prepared p = statements.get(name);
    if (p == null) {
      throw new SqlException("26000", "prepared statement \"" + name + "\" does not exist");
    }
    short[] paramFormats = new short[b.getShort()];
    for (int i = 0; i < paramFormats.length; i++) {
      paramFormats[i] = b.getShort();
    }
    String[] values = new String[b.getShort()];
    for (int i = 0; i < values.length; i++) {
      int len = b.getInt();
      if (len < 0) {
        continue;
      }
      byte[] v = new byte[len];
      b.get(v);
      short format = paramFormats.length == 0 ? 0 : paramFormats[paramFormats.length == 1 ? 0 : i];
      int type = i < p.paramTypes().length ? p.paramTypes()[i] : 0;
      values[i] = format == 0 ? literal(new String(v, StandardCharsets.UTF_8), type) : binaryLiteral(v, type, i);
    }
    short[] resultFormats = new short[b.getShort()];
    for (int i = 0; i < resultFormats.length; i++) {
      resultFormats[i] = b.getShort();
    }
    portals.put(portal, new Portal(SqlEngine.substitute(p.sql(), values), resultFormats));
    message('2', w -> {});
  }

  private static String literal(String text, int type) {
    return switch (type) {
      case PgTypes.INT4, PgTypes.INT8, PgTypes.FLOAT8, 21, 700, 1700 -> text;
      case PgTypes.BOOL -> text.startsWith("t") ? "TRUE" : "FALSE";
      default -> "'" + text.replace("'", "''") + "'";
    };
  }

  private static String binaryLiteral(byte[] v, int type, int index) {
    ByteBuffer b = ByteBuffer.wrap(v);
    return switch (type) {
      case PgTypes.INT4 -> Integer.toString(b.getInt());
      case PgTypes.INT8 -> Long.toString(b.getLong());
      case 21 -> Short.toString(b.getShort());
      case PgTypes.FLOAT8 -> Double.toString(b.getDouble());
      case PgTypes.BOOL -> v[0] != 0 ? "TRUE" : "FALSE";
      case PgTypes.TEXT, PgTypes.VARCHAR, 0 -> "'" + new String(v, StandardCharsets.UTF_8).replace("'", "''") + "'";
      default -> throw SqlException.notSupported("binary parameter $" + (index + 1) + " of type oid " + type);
    };
  }

  private void describe(ByteBuffer b) throws IOException {
    char kind = (char) b.get();
    String name = cstring(b);
    if (kind == 'S') {
      Prepared p = statements.get(name);
      if (p == null) {
        throw new SqlException("26000", "prepared statement \"" + name + "\" does not exist");
      }
      int params = Math.max(p.paramTypes().length, SqlEngine.parameterCount(p.sql()));
      message('t', w -> {
        w.writeShort(params);
        for (int i = 0; i < params; i++) {
          int t = i < p.paramTypes().length ? p.paramTypes()[i] : 0;
          w.writeInt(t == 0 ? PgTypes.TEXT : t);
        }
      });
      // The row shape without running anything: only queries have one.
      List<Column> cols = engine.describe(SqlEngine.substitute(p.sql(), nulls(params)));
      if (cols == null) {
        message('n', w -> {});
      } else {
        rowDescription(new Result(cols, List.of(), ""), new short[0]);
      }
      return;
    }
    Portal p = portal(name);
    run(p);
    if (p.result.hasRows()) {
      rowDescription(p.result, p.resultFormats);
    } else {
      message('n', w -> {});
    }
  }

  private static String[] nulls(int n) {
    String[] v = new String[n];
    java.util.Arrays.fill(v, null);
    return v;
  }

  private void execute(ByteBuffer b) throws IOException {
    Portal p = portal(cstring(b));
    int max = b.getInt();
    run(p);
    if (p.sql.isBlank()) {
      message('I', w -> {});
      return;
    }
    p.sent = sendRows(p.result, p.sent, p.resultFormats, max);
  }

  private void run(Portal p) {
    if (p.result == null && !p.sql.isBlank()) {
      p.result = engine.execute(p.sql);
    }
  }

  private Portal portal(String name) {
    Portal p = portals.get(name);
    if (p == null) {
      throw new SqlException("34000", "portal \"" + name + "\" does not exist");
    }
    return p;
  }

  private void close(ByteBuffer b) throws IOException {
    char kind = (char) b.get();
    String name = cstring(b);
    if (kind == 'S') {
      statements.remove(name);
    } else {
      portals.remove(name);
    }
    message('3', w -> {});
  }

  private void rowDescription(Result r, short[] formats) throws IOException {
    message('T', w -> {
      w.writeShort(r.columns().size());
      for (int i = 0; i < r.columns().size(); i++) {
        Column c = r.columns().get(i);
        w.write(c.name().getBytes(StandardCharsets.UTF_8));
        w.write(0);
        w.writeInt(0);
        w.writeShort(0);
        w.writeInt(PgTypes.oid(c.type()));
        w.writeShort(PgTypes.size(c.type()));
        w.writeInt(-1);
        w.writeShort(format(formats, i));
      }
    });
  }

  private static short format(short[] formats, int i) {
    return formats.length == 0 ? 0 : formats[formats.length == 1 ? 0 : i];
  }

  /** Sends rows from {@code from} (at most {@code max}, 0: all); returns how many were sent in all. */
  private int sendRows(Result r, int from, short[] formats, int max) throws IOException {
    int end = max <= 0 ? r.rows().size() : Math.min(r.rows().size(), from + max);
    for (int i = from; i < end; i++) {
      if (canceled) {
        throw new SqlException(SqlException.QUERY_CANCELED, "canceling statement due to user request");
      }
      Object[] row = r.rows().get(i);
      message('D', w -> {
        w.writeShort(r.columns().size());
        for (int c = 0; c < r.columns().size(); c++) {
          if (row[c] == null) {
            w.writeInt(-1);
          } else {
            byte[] v = PgTypes.encode(r.columns().get(c).type(), row[c], format(formats, c));
            w.writeInt(v.length);
            w.write(v);
          }
        }
      });
    }
    if (end < r.rows().size()) {
      message('s', w -> {});
    } else {
      String tag = r.tag();
      message('C', w -> {
        w.write(tag.getBytes(StandardCharsets.UTF_8));
        w.write(0);
      });
    }
    return end;
  }

  /** A failure that is no refusal: logged with its stack, answered as XX000 naming it. */
  private static SqlException internal(RuntimeException e) {
    org.slf4j.LoggerFactory.getLogger(PgSession.class).warn("SQL statement failed", e);
    return new SqlException(SqlException.INTERNAL, "internal error: " + e);
  }

  private void error(SqlException e) throws IOException {
    message('E', w -> {
      field(w, 'S', "ERROR");
      field(w, 'V', "ERROR");
      field(w, 'C', e.sqlState());
      field(w, 'M', e.getMessage() == null ? e.toString() : e.getMessage());
      if (e.position() > 0) {
        field(w, 'P', Integer.toString(e.position()));
      }
      w.write(0);
    });
  }

  private static void field(DataOutputStream w, char code, String value) throws IOException {
    w.write(code);
    w.write(value.getBytes(StandardCharsets.UTF_8));
    w.write(0);
  }

  private void parameter(String key, String value) throws IOException {
    message('S', w -> {
      w.write(key.getBytes(StandardCharsets.UTF_8));
      w.write(0);
      w.write(value.getBytes(StandardCharsets.UTF_8));
      w.write(0);
    });
  }

  private void readyForQuery() throws IOException {
    message('Z', w -> w.write('I'));
    out.flush();
  }

  private interface Body {
    void write(DataOutputStream w) throws IOException;
  }

  private void message(char type, Body body) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    body.write(new DataOutputStream(bytes));
    out.write(type);
    out.writeInt(bytes.size() + 4);
    bytes.writeTo(out);
  }

  private static String cstring(ByteBuffer b) {
    int start = b.position();
    while (b.get() != 0) {
      // scan to the terminator
    }
    return new String(b.array(), start, b.position() - start - 1, StandardCharsets.UTF_8);
  }
}
