package dev.tide.meta.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class ReschedulePlanTest {

  @Example
  void parsesFragmentsAndDeltasWithSpaces() {
    ReschedulePlan p = ReschedulePlan.parse(" 3 : [ 2:+1 , 1 : -2 ] ; 1:[4:+3];");
    assertThat(p.fragments().keySet()).containsExactly(1, 3);
    assertThat(p.fragments().get(3)).containsExactly(new WorkerDelta(1, -2), new WorkerDelta(2, 1));
    assertThat(p.fragments().get(1)).containsExactly(new WorkerDelta(4, 3));
    assertThat(p.netDelta(3)).isEqualTo(-1);
    assertThat(p.render()).isEqualTo("1:[4:+3];3:[1:-2,2:+1]");
  }

  @Provide
  Arbitrary<ReschedulePlan> plans() {
    Arbitrary<WorkerDelta> delta = net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 50),
        Arbitraries.integers().between(-100, 100).filter(d -> d != 0)).as(WorkerDelta::new);
    Arbitrary<List<WorkerDelta>> deltas = delta.list().ofMinSize(1).ofMaxSize(5).uniqueElements(WorkerDelta::workerId);
    return Arbitraries.maps(Arbitraries.integers().between(0, 30), deltas).ofMinSize(1).ofMaxSize(4)
        .map(m -> new ReschedulePlan(new TreeMap<>(m)));
  }

  @Property(tries = 200)
  void renderIsTheInverseOfParse(@ForAll("plans") ReschedulePlan p) {
    assertThat(ReschedulePlan.parse(p.render())).isEqualTo(p);
  }

  @Example
  void refusesMalformedPlansNamingTheBadPart() {
    String[][] cases = {
        {"", "it is empty"},
        {"   ", "it is empty"},
        {"1:[2:+1];;3:[1:-1]", "entry 2 is empty"},
        {"1[2:+1]", "entry '1[2:+1]' is not of the form"},
        {"1:2:+1", "entry '1:2:+1' is not of the form"},
        {"1:[2:+1", "entry '1:[2:+1' is not of the form"},
        {"x:[2:+1]", "fragment id 'x' is not a non-negative integer"},
        {"-1:[2:+1]", "fragment id '-1'"},
        {"1:[]", "fragment 1 lists no worker delta"},
        {"1:[2:1]", "delta '2:1' of fragment 1 is not of the form <worker>:+n or <worker>:-n"},
        {"1:[2:+x]", "delta '2:+x'"},
        {"1:[2:+1,]", "delta '' of fragment 1"},
        {"1:[2:+1;3:-1]", "entry '1:[2:+1' is not of the form"},
        {"1:[2:+1]]", "unbalanced brackets"},
        {"1:[2:+0]", "changes nothing"},
        {"1:[2:+1,2:-1]", "worker 2 appears more than once in fragment 1"},
        {"1:[2:+1];1:[3:+1]", "fragment 1 appears more than once"},
        {"1:[2:+99999999999]", "delta '2:+99999999999'"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> ReschedulePlan.parse(c[0])).as(c[0]).isInstanceOf(RescheduleException.class)
          .hasMessageContaining("reschedule plan '" + c[0] + "' is malformed")
          .hasMessageContaining(c[1])
          .hasMessageContaining("expected \"<fragment>:[<worker>:+n,<worker>:-m];<fragment>:[...]\"");
    }
  }

  @Example
  void refusesBadPlansBuiltInCode() {
    TreeMap<Integer, List<WorkerDelta>> empty = new TreeMap<>();
    empty.put(1, new ArrayList<>());
    assertThatThrownBy(() -> new ReschedulePlan(empty)).hasMessageContaining("lists no worker");
    assertThatThrownBy(() -> new WorkerDelta(2, 0)).hasMessageContaining("delta of worker 2 is 0");
    TreeMap<Integer, List<WorkerDelta>> twice = new TreeMap<>();
    twice.put(1, List.of(new WorkerDelta(2, 1), new WorkerDelta(2, -1)));
    assertThatThrownBy(() -> new ReschedulePlan(twice)).hasMessageContaining("worker 2 appears more than once");
  }
}
