package dev.tide.meta.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LayoutTextTest {
  @Test
  void rendersOneLinePerFragmentAndActor() {
    TreeMap<Integer, List<ActorPlacement>> f = new TreeMap<>();
    f.put(0, List.of(new ActorPlacement(1, 1, VnodeBitmap.full(1), List.of(0, 2)), new ActorPlacement(2, 2, VnodeBitmap.full(1), List.of(1, 3))));
    f.put(1, List.of(new ActorPlacement(3, 1, VnodeBitmap.parse(256, "0-63,128-191"), List.of()),
        new ActorPlacement(4, 2, VnodeBitmap.parse(256, "64-127,192-255"), List.of())));
    f.put(2, List.of(new ActorPlacement(5, 2, VnodeBitmap.empty(8), List.of()), new ActorPlacement(6, 1, null, List.of(7))));
    f.put(3, List.of());
    JobLayout layout = new JobLayout(f);
    String text = LayoutText.render(layout);
    assertThat(text).isEqualTo("""
        fragment 0
        actor 1 worker 1 vnodes 1:0 splits 0,2
        actor 2 worker 2 vnodes 1:0 splits 1,3
        fragment 1
        actor 3 worker 1 vnodes 256:0-63,128-191 splits -
        actor 4 worker 2 vnodes 256:64-127,192-255 splits -
        fragment 2
        actor 5 worker 2 vnodes 8: splits -
        actor 6 worker 1 vnodes - splits 7
        fragment 3
        """);
    assertThat(LayoutText.parse(text)).isEqualTo(layout);
    assertThat(LayoutText.parse("")).isEqualTo(new JobLayout(new TreeMap<>()));
  }

  @Test
  void roundTripsPlannedLayouts() {
    for (int p = 1; p <= 6; p++) {
      JobLayout l = Fixtures.layout(Fixtures.job(3, "q"), p, 10);
      assertThat(LayoutText.parse(LayoutText.render(l))).isEqualTo(l);
    }
  }

  @Test
  void badTextIsRefusedNamingTheLine() {
    assertThatThrownBy(() -> LayoutText.parse("fragment 0\nactor 1 worker x vnodes 1:0 splits -\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("layout text is not valid at line 2 'actor 1 worker x vnodes 1:0 splits -': For input string: \"x\"");
    assertThatThrownBy(() -> LayoutText.parse("actor 1 worker 1 vnodes 1:0 splits -"))
        .hasMessageContaining("an actor line comes before any fragment line");
    assertThatThrownBy(() -> LayoutText.parse("fragment 0\nactor 1 worker 1 vnodes 4:0-9 splits -"))
        .hasMessageContaining("vnode 9 out of range 0..3");
    assertThatThrownBy(() -> LayoutText.parse("fragment 0\nfragment 0"))
        .hasMessageContaining("fragment 0 appears twice");
  }
}
