package dev.tide.stream.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.stream.queries.NexmarkPlans;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Plans and compiled jobs travel as protobuf (meta ships them to compute nodes): every built-in
 * query's plan and job parse back equal, and building and compiling are deterministic: the same
 * input gives identical bytes, whatever the iteration order of the options map it came in.
 */
class PlanSerializationTest {

  record Input(String query, Map<String, String> options, int vnodeCount, long shuffleSeed) {}

  @Provide
  Arbitrary<Input> inputs() {
    Arbitrary<Map<String, String>> options = Combinators.combine(
        Arbitraries.longs().between(-1, 1_000_000).injectNull(0.5),
        Arbitraries.longs().between(0, 100_000).injectNull(0.5),
        Arbitraries.longs().injectNull(0.5),
        Arbitraries.integers().between(1, 4096).injectNull(0.5),
        Arbitraries.longs().between(1, 1_000_000).injectNull(0.5))
        .as((events, rate, seed, splits, etr) -> {
          Map<String, String> m = new LinkedHashMap<>();
          put(m, "events", events);
          put(m, "rate", rate);
          put(m, "seed", seed);
          put(m, "splits", splits);
          put(m, "event-time-rate", etr);
          return m;
        });
    return Combinators.combine(Arbitraries.of(NexmarkPlans.names()), options,
        Arbitraries.oneOf(Arbitraries.of(1, 256, 32768), Arbitraries.integers().between(1, 32768)), Arbitraries.longs())
        .as(Input::new);
  }

  private static void put(Map<String, String> m, String key, Object v) {
    if (v != null) {
      m.put(key, String.valueOf(v));
    }
  }

  private static Map<String, String> shuffled(Map<String, String> m, long seed) {
    List<String> keys = new ArrayList<>(m.keySet());
    Collections.shuffle(keys, new Random(seed));
    Map<String, String> out = new LinkedHashMap<>();
    for (String k : keys) {
      out.put(k, m.get(k));
    }
    return out;
  }

  @Property(tries = 150)
  void planAndJobRoundTripAndAreDeterministic(@ForAll("inputs") Input in) throws Exception {
    Plan plan = NexmarkPlans.plan(in.query(), in.options());
    byte[] planBytes = plan.toByteArray();
    assertThat(Plan.parseFrom(planBytes)).isEqualTo(plan);

    Plan again = NexmarkPlans.plan(in.query(), shuffled(in.options(), in.shuffleSeed()));
    assertThat(again.toByteArray()).as("same plan from options in another order").isEqualTo(planBytes);

    JobDefinition job = JobCompiler.compile(plan, 3, in.vnodeCount(), 500);
    byte[] jobBytes = job.toByteArray();
    assertThat(JobDefinition.parseFrom(jobBytes)).isEqualTo(job);
    assertThat(JobCompiler.compile(again, 3, in.vnodeCount(), 500).toByteArray()).isEqualTo(jobBytes);
    // A plan that made the trip compiles to the same job.
    assertThat(JobCompiler.compile(Plan.parseFrom(planBytes), 3, in.vnodeCount(), 500).toByteArray()).isEqualTo(jobBytes);
    JobCompilerTest.checkInvariants(job);
  }

  @Property(tries = 20)
  void everyQueryWithDefaultOptionsRoundTrips(@ForAll("queries") String q) throws Exception {
    Plan plan = NexmarkPlans.plan(q, Map.of());
    assertThat(Plan.parseFrom(plan.toByteArray())).isEqualTo(plan);
    JobDefinition job = JobCompiler.compile(plan, 1, 256, 1000);
    assertThat(JobDefinition.parseFrom(job.toByteArray())).isEqualTo(job);
    assertThat(JobCompiler.compile(plan, 1, 256, 1000).toByteArray()).isEqualTo(job.toByteArray());
  }

  @Provide
  Arbitrary<String> queries() {
    return Arbitraries.of(NexmarkPlans.names());
  }
}
