package dev.tide.bench.flink;

import dev.tide.common.hash.RowFingerprint;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple;

/**
 * A sink that keeps no rows: each writer fingerprints the tuples it receives and adds its
 * {@link RowFingerprint} to a process-wide total under the run's name when it closes. It works
 * because the MiniCluster runs in this JVM; the bench disables restarts, so a writer sees each row
 * once.
 */
public final class FingerprintSink<T extends Tuple> implements Sink<T> {
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

  private static final class Writer<T extends Tuple> implements SinkWriter<T> {
    private final String run;
    private final RowFingerprint.Builder fingerprint = new RowFingerprint.Builder();
    private Object[] sized;

    Writer(String run) {
      this.run = run;
    }

    @Override
    public void write(T t, Context context) {
      int n = t.getArity();
      if (sized == null || sized.length != n) {
        sized = new Object[n];
      }
      for (int i = 0; i < n; i++) {
        sized[i] = t.getField(i);
      }
      fingerprint.add(sized);
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
