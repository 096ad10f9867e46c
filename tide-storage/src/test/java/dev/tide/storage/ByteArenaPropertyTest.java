package dev.tide.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Slices appended to an arena read back as written, each within one array of at most a page
 * (unless longer than a page, then in an array of its own), across the first page's growth, page
 * ends, and resets that reuse the pages.
 */
class ByteArenaPropertyTest {
  private record Slice(int pos, byte[] bytes) {}

  @Property(tries = 60)
  void slicesReadBackAsWrittenWithinOnePage(@ForAll long seed) {
    Random rnd = new Random(seed);
    ByteArena arena = new ByteArena();
    List<Slice> live = new ArrayList<>();
    for (int step = 0; step < 300; step++) {
      if (rnd.nextInt(100) == 0) {
        arena.reset();
        live.clear();
        assertThat(arena.bytes()).isZero();
        continue;
      }
      int len = switch (rnd.nextInt(20)) {
        case 0 -> ByteArena.PAGE + rnd.nextInt(1000); // its own array
        case 1, 2 -> rnd.nextInt(ByteArena.PAGE / 2); // page ends
        default -> rnd.nextInt(300);
      };
      byte[] b = new byte[len];
      rnd.nextBytes(b);
      int pos = arena.append(b, 0, len);
      live.add(new Slice(pos, b));
      assertThat(ByteArena.offset(pos) + len).isLessThanOrEqualTo(arena.array(pos).length);
      assertThat(arena.array(pos).length).isLessThanOrEqualTo(Math.max(ByteArena.PAGE, len));
    }
    long total = 0;
    for (Slice s : live) {
      int from = ByteArena.offset(s.pos());
      assertThat(Arrays.copyOfRange(arena.array(s.pos()), from, from + s.bytes().length)).isEqualTo(s.bytes());
      total += s.bytes().length;
    }
    assertThat(arena.bytes()).isEqualTo(total);
    assertThat(arena.capacity()).isGreaterThanOrEqualTo(total);
  }
}
