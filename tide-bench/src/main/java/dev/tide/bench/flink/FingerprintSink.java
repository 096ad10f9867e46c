package dev.tide.bench.flink;

import dev.tide.common.hash.RowFingerprint;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * A sink that keeps no rows: each writer fingerprints the records it receives and adds its
 * {@link RowFingerprint} to a process-wide total under the run's name when it closes. It works
 * because the MiniCluster runs in this JVM; the bench disables restarts, so a writer sees each row
 * once.
 *
 * <p>Records are tuples (DataStream jobs, inserts only) or rows of a table's changelog (SQL jobs):
 * inserts and update-afters add a row, deletes and update-befores take it away, so the total is
 * the fingerprint of the final result, as Tide's digest nets its changelog. Timestamps count as
 * their epoch milliseconds, the value Tide's rows hold.
 */
public final class FingerprintSink<T> implements Sink<T> {
  private static final long serialVersionUID = 1L;
  private static final Map<String, RowFingerprint> TOTALS = new ConcurrentHashMap<>();

  private final String run;

  public FingerprintSink(String run) {
    this.run = run;
  }

  /** The fingerprint of everything written under {@code run} by writers that have closed. */
  public static RowFingerprint total(String run) {
    return TOTALS.getOrDefault(run, RowFingerprint.EMPTY);
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    return new Writer<>(run);
  }

  private static final class Writer<T> implements SinkWriter<T> {
    private final String run;
    private final RowFingerprint.Builder fingerprint = new RowFingerprint.Builder();
    private Object[] sized;

    Writer(String run) {
      this.run = run;
    }

    @Override
    public void write(T record, Context context) {
      if (record instanceof Tuple t) {
        Object[] row = sized(t.getArity());
        for (int i = 0; i < row.length; i++) {
          row[i] = t.getField(i);
        }
        fingerprint.add(row);
        return;
      }
      Row r = (Row) record;
      Object[] row = sized(r.getArity());
      for (int i = 0; i < row.length; i++) {
        Object v = r.getField(i);
        row[i] = v instanceof Instant at ? at.toEpochMilli() : v instanceof LocalDateTime lt ? lt.toInstant(ZoneOffset.UTC).toEpochMilli() : v;
      }
      if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
        fingerprint.add(row);
      } else {
        fingerprint.remove(Arrays.asList(row));
      }
    }

    private Object[] sized(int n) {
      if (sized == null || sized.length != n) {
        sized = new Object[n];
      }
      return sized;
    }

    @Override
    public void flush(boolean endOfInput) {}

    @Override
    public void close() {
      RowFingerprint f = fingerprint.build();
      TOTALS.merge(run, f, RowFingerprint::plus);
    }
  }
}
