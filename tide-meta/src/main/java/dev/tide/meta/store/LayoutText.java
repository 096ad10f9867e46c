package dev.tide.meta.store;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The textual form of a {@link JobLayout} kept in the meta store: readable in {@code psql} or
 * {@code sqlite3}, and compact because vnode bitmaps are run-length encoded. One line per fragment
 * header and per actor, in fragment order and actor index order:
 *
 * <pre>
 * fragment 1
 * actor 17 worker 2 vnodes 256:0-127 splits -
 * actor 18 worker 3 vnodes 256:128-255 splits -
 * </pre>
 *
 * <p>{@code vnodes} is {@code <vnode count>:<ranges>} (ranges as {@link VnodeBitmap#toString()},
 * empty for no vnode) or {@code -} for none; {@code splits} a comma-separated list or {@code -}.
 * {@link #parse} is the inverse of {@link #render}.
 */
public final class LayoutText {
  static final String FORM = "lines 'fragment <id>' each followed by lines "
      + "'actor <id> worker <id> vnodes <count>:<ranges>|- splits <s>,<s>...|-'";

  private LayoutText() {}

  public static String render(JobLayout layout) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<Integer, List<ActorPlacement>> f : layout.fragments().entrySet()) {
      sb.append("fragment ").append(f.getKey()).append('\n');
      for (ActorPlacement a : f.getValue()) {
        sb.append("actor ").append(a.actorId()).append(" worker ").append(a.workerId()).append(" vnodes ");
        if (a.vnodes() == null) {
          sb.append('-');
        } else {
          sb.append(a.vnodes().vnodeCount()).append(':').append(a.vnodes());
        }
        sb.append(" splits ");
        if (a.splits().isEmpty()) {
          sb.append('-');
        } else {
          for (int i = 0; i < a.splits().size(); i++) {
            sb.append(i == 0 ? "" : ",").append(a.splits().get(i));
          }
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /** Parses {@link #render}'s form; blank lines are ignored. */
  public static JobLayout parse(String text) {
    TreeMap<Integer, List<ActorPlacement>> fragments = new TreeMap<>();
    List<ActorPlacement> current = null;
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] t = line.split(" +");
      try {
        if (t.length == 2 && t[0].equals("fragment")) {
          int id = Integer.parseInt(t[1]);
          current = new ArrayList<>();
          if (fragments.put(id, current) != null) {
            throw new IllegalArgumentException("fragment " + id + " appears twice");
          }
        } else if (t.length == 8 && t[0].equals("actor") && t[2].equals("worker") && t[4].equals("vnodes") && t[6].equals("splits")) {
          if (current == null) {
            throw new IllegalArgumentException("an actor line comes before any fragment line");
          }
          current.add(new ActorPlacement(Long.parseLong(t[1]), Integer.parseInt(t[3]), vnodes(t[5]), splits(t[7])));
        } else {
          throw new IllegalArgumentException("unknown line");
        }
      } catch (IllegalArgumentException e) { // includes NumberFormatException
        throw new IllegalArgumentException("layout text is not valid at line " + (i + 1) + " '" + line + "': " + e.getMessage()
            + "; expected " + FORM, e);
      }
    }
    return new JobLayout(fragments);
  }

  private static VnodeBitmap vnodes(String token) {
    if (token.equals("-")) {
      return null;
    }
    int colon = token.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("vnodes '" + token + "' lack the '<count>:' prefix");
    }
    int count = Integer.parseInt(token.substring(0, colon));
    if (count < 1) {
      throw new IllegalArgumentException("vnode count " + count + " is not positive");
    }
    return VnodeBitmap.parse(count, token.substring(colon + 1));
  }

  private static List<Integer> splits(String token) {
    List<Integer> out = new ArrayList<>();
    if (!token.equals("-")) {
      for (String s : token.split(",", -1)) {
        out.add(Integer.parseInt(s));
      }
    }
    return out;
  }
}
