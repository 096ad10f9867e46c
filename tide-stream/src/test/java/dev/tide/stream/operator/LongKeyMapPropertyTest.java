package dev.tide.stream.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The long-key map against a HashMap model over random puts, removes, lookups and clears. */
class LongKeyMapPropertyTest {
  @Property(tries = 200)
  void behavesLikeAHashMap(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int width) {
    Random rnd = new Random(seed);
    LongKeyMap<String> map = new LongKeyMap<>(width);
    Map<List<Long>, String> model = new HashMap<>();
    int range = 1 + rnd.nextInt(200); // small ranges collide and chain a lot
    for (int step = 0; step < 3000; step++) {
      long[] key = new long[width];
      Long[] boxed = new Long[width];
      for (int k = 0; k < width; k++) {
        key[k] = rnd.nextInt(range) * (rnd.nextBoolean() ? 1L : 1L << 40);
        boxed[k] = key[k];
      }
      List<Long> mk = List.of(boxed);
      String where = "seed " + seed + " step " + step;
      switch (rnd.nextInt(10)) {
        case 0, 1, 2, 3 -> {
          map.put(key, "v" + step);
          model.put(mk, "v" + step);
        }
        case 4, 5, 6 -> {
          map.remove(key);
          model.remove(mk);
        }
        case 7 -> {
          if (rnd.nextInt(50) == 0) {
            map.clear();
            model.clear();
          }
        }
        default -> assertThat(map.get(key)).as(where).isEqualTo(model.get(mk));
      }
      assertThat(map.size()).as(where).isEqualTo(model.size());
    }
    for (Map.Entry<List<Long>, String> e : model.entrySet()) {
      long[] key = e.getKey().stream().mapToLong(Long::longValue).toArray();
      assertThat(map.get(key)).isEqualTo(e.getValue());
    }
  }
}
