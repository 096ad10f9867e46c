package dev.tide.meta.scale;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An explicit reschedule: per fragment (an ensemble root), actors to add to or remove from workers.
 * Textual form {@code "<fragment>:[<worker>:+n,<worker>:-m];<fragment>:[...]"}, spaces allowed, e.g.
 * {@code "3:[1:-1,2:+1]"} migrates one actor of fragment 3 from worker 1 to worker 2. A fragment or a
 * worker within a fragment appears at most once; deltas are non-zero. Deltas of a fragment are kept
 * sorted by worker id.
 */
public record ReschedulePlan(SortedMap<Integer, List<WorkerDelta>> fragments) {
  /** The expected form, for error messages. */
  public static final String FORM = "\"<fragment>:[<worker>:+n,<worker>:-m];<fragment>:[...]\", e.g. \"3:[1:-1,2:+1]\"";

  private static final Pattern ENTRY = Pattern.compile("\\s*(\\S*?)\\s*:\\s*\\[(.*)]\\s*", Pattern.DOTALL);
  private static final Pattern DELTA = Pattern.compile("\\s*(\\d{1,9})\\s*:\\s*([+-])\\s*(\\d{1,9})\\s*");

  public ReschedulePlan {
    TreeMap<Integer, List<WorkerDelta>> copy = new TreeMap<>();
    for (Map.Entry<Integer, List<WorkerDelta>> e : fragments.entrySet()) {
      if (e.getValue().isEmpty()) {
        throw new RescheduleException("reschedule of fragment " + e.getKey() + " refused: the plan lists no worker for it; expected " + FORM);
      }
      List<WorkerDelta> deltas = new ArrayList<>(e.getValue());
      deltas.sort((a, b) -> Integer.compare(a.workerId(), b.workerId()));
      TreeSet<Integer> seen = new TreeSet<>();
      for (WorkerDelta d : deltas) {
        if (!seen.add(d.workerId())) {
          throw new RescheduleException("reschedule of fragment " + e.getKey() + " refused: worker " + d.workerId()
              + " appears more than once in its deltas " + render(deltas));
        }
      }
      copy.put(e.getKey(), List.copyOf(deltas));
    }
    fragments = Collections.unmodifiableSortedMap(copy);
  }

  /**
   * Parses {@link #FORM}. A trailing {@code ';'} is allowed.
   *
   * @throws RescheduleException naming the malformed part and the expected form
   */
  public static ReschedulePlan parse(String text) {
    if (text == null || text.isBlank()) {
      throw malformed(text, "it is empty");
    }
    String[] entries = text.split(";", -1);
    int count = entries.length;
    if (count > 1 && entries[count - 1].isBlank()) {
      count--;
    }
    TreeMap<Integer, List<WorkerDelta>> out = new TreeMap<>();
    for (int i = 0; i < count; i++) {
      String entry = entries[i];
      if (entry.isBlank()) {
        throw malformed(text, "entry " + (i + 1) + " is empty");
      }
      Matcher m = ENTRY.matcher(entry);
      if (!m.matches()) {
        throw malformed(text, "entry '" + entry.strip() + "' is not of the form <fragment>:[<worker>:+n,...]");
      }
      int fragment = number(text, m.group(1), "fragment id");
      String inner = m.group(2);
      if (inner.contains("[") || inner.contains("]")) {
        throw malformed(text, "entry '" + entry.strip() + "' has unbalanced brackets (separate fragments with ';')");
      }
      if (inner.isBlank()) {
        throw malformed(text, "fragment " + fragment + " lists no worker delta");
      }
      List<WorkerDelta> deltas = new ArrayList<>();
      TreeSet<Integer> workers = new TreeSet<>();
      for (String d : inner.split(",", -1)) {
        Matcher dm = DELTA.matcher(d);
        if (!dm.matches()) {
          throw malformed(text, "delta '" + d.strip() + "' of fragment " + fragment + " is not of the form <worker>:+n or <worker>:-n");
        }
        int worker = Integer.parseInt(dm.group(1));
        int n = Integer.parseInt(dm.group(3));
        if (n == 0) {
          throw malformed(text, "delta '" + d.strip() + "' of fragment " + fragment + " changes nothing: n must be at least 1");
        }
        if (!workers.add(worker)) {
          throw malformed(text, "worker " + worker + " appears more than once in fragment " + fragment);
        }
        deltas.add(new WorkerDelta(worker, dm.group(2).equals("+") ? n : -n));
      }
      if (out.put(fragment, deltas) != null) {
        throw malformed(text, "fragment " + fragment + " appears more than once");
      }
    }
    return new ReschedulePlan(out);
  }

  private static int number(String text, String s, String what) {
    if (!s.matches("\\d{1,9}")) {
      throw malformed(text, what + " '" + s + "' is not a non-negative integer");
    }
    return Integer.parseInt(s);
  }

  private static RescheduleException malformed(String text, String why) {
    return new RescheduleException("reschedule plan '" + text + "' is malformed: " + why + "; expected " + FORM);
  }

  /** The textual form, fragments and workers in id order; {@code parse(render())} equals this plan. */
  public String render() {
    StringBuilder sb = new StringBuilder();
    fragments.forEach((f, deltas) -> {
      if (sb.length() > 0) {
        sb.append(';');
      }
      sb.append(f).append(':').append(render(deltas));
    });
    return sb.toString();
  }

  private static String render(List<WorkerDelta> deltas) {
    StringBuilder sb = new StringBuilder("[");
    for (WorkerDelta d : deltas) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append(d.render());
    }
    return sb.append(']').toString();
  }

  /** The net change of the actor count of a fragment. */
  public int netDelta(int fragmentId) {
    return fragments.getOrDefault(fragmentId, List.of()).stream().mapToInt(WorkerDelta::delta).sum();
  }
}
