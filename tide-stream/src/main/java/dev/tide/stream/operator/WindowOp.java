package dev.tide.stream.operator;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.WindowKind;
import dev.tide.proto.plan.WindowNode;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;

/**
 * Window assignment. TUMBLE appends {@code window_start = floor(t / size) * size} and
 * {@code window_end}; HOP emits one row per window {@code [w, w + size)} containing t, with w a
 * multiple of the slide (update pairs become delete + insert, since their windows may differ). A
 * null time has no window: TUMBLE gives it null window columns, HOP drops the row.
 *
 * <p>A watermark on the time column also goes on to the window columns: the start (and end) of the
 * earliest window a row at the watermark falls in. Rows at or after it fall in no earlier window.
 */
public final class WindowOp implements Operator {
  private final boolean hop;
  private final int timeColumn;
  private final long size;
  private final long slide;
  /** Output index of window_start; window_end follows it. */
  private final int startColumn;

  public WindowOp(WindowNode w, int inputColumns) {
    this.startColumn = inputColumns;
    this.hop = w.getKind() == WindowKind.HOP;
    this.timeColumn = w.getTimeColumn();
    this.size = w.getSizeMs();
    this.slide = w.getSlideMs();
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    out.watermark(watermark);
    if (watermark.column() != timeColumn) {
      return;
    }
    long w = watermark.value();
    long start = w == Long.MAX_VALUE ? Long.MAX_VALUE
        : hop ? Math.floorDiv(w, slide) * slide - (size / slide - 1) * slide : Math.floorDiv(w, size) * size;
    out.watermark(new Watermark(startColumn, start));
    out.watermark(new Watermark(startColumn + 1, start == Long.MAX_VALUE ? Long.MAX_VALUE : start + size));
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    if (!hop) {
      out.emit(tumble(chunk));
      return;
    }
    StreamChunk c = chunk.compact();
    int n = c.size();
    int per = (int) (size / slide);
    int[] rows = new int[n * per];
    long[] starts = new long[n * per];
    int m = 0;
    LongColumn t = (LongColumn) c.column(timeColumn);
    for (int i = 0; i < n; i++) {
      if (t.isNull(i)) {
        continue;
      }
      long ts = t.getLong(i);
      long last = Math.floorDiv(ts, slide) * slide;
      for (long w = last - (per - 1) * slide; w <= last; w += slide) {
        rows[m] = i;
        starts[m] = w;
        m++;
      }
    }
    StreamChunk g = c.gather(rows, m);
    byte[] ops = g.ops();
    for (int i = 0; i < m; i++) {
      ops[i] = Op.normalize(ops[i]);
    }
    out.emit(withWindow(g, starts, m, null));
  }

  /** A row whose time is null belongs to no window: its window columns are null. */
  private StreamChunk tumble(StreamChunk chunk) {
    int n = chunk.size();
    LongColumn t = (LongColumn) chunk.column(timeColumn);
    long[] starts = new long[n];
    boolean[] nulls = null;
    for (int i = 0; i < n; i++) {
      if (t.isNull(i)) {
        if (nulls == null) {
          nulls = new boolean[n];
        }
        nulls[i] = true;
      } else {
        starts[i] = Math.floorDiv(t.getLong(i), size) * size;
      }
    }
    return withWindow(chunk, starts, n, nulls);
  }

  private StreamChunk withWindow(StreamChunk c, long[] starts, int n, boolean[] nulls) {
    long[] ends = new long[n];
    for (int i = 0; i < n; i++) {
      ends[i] = starts[i] + size;
    }
    Column[] cols = new Column[c.columnCount() + 2];
    System.arraycopy(c.columns(), 0, cols, 0, c.columnCount());
    cols[cols.length - 2] = new LongColumn(DataType.TIMESTAMP, starts, n, nulls);
    cols[cols.length - 1] = new LongColumn(DataType.TIMESTAMP, ends, n, nulls);
    return c.withColumns(cols);
  }
}
