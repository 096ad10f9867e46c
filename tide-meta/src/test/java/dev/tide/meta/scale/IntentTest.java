package dev.tide.meta.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class IntentTest {

  @Provide
  Arbitrary<Intent> intents() {
    return Arbitraries.oneOf(
        Arbitraries.integers().between(1, Integer.MAX_VALUE).map(Intent::fixed),
        Arbitraries.just(Intent.adaptive()),
        Arbitraries.integers().between(1, Integer.MAX_VALUE).map(Intent::bounded),
        Arbitraries.doubles().between(0.0, 1.0).filter(r -> r > 0).map(Intent::ratio),
        Arbitraries.of(0.5, 0.25, 0.1, 0.29, 1.0, 1e-9).map(Intent::ratio));
  }

  @Property(tries = 300)
  void renderIsTheInverseOfParse(@ForAll("intents") Intent i) {
    assertThat(Intent.parse(i.render())).isEqualTo(i);
  }

  @Property(tries = 300)
  void resolvesWithinItsBounds(@ForAll("intents") Intent i, @ForAll @IntRange(min = 0, max = 100_000) int slots) {
    int n = i.resolve(slots);
    if (i instanceof Intent.Fixed f) {
      assertThat(n).isEqualTo(f.parallelism());
    } else if (i instanceof Intent.Adaptive a) {
      assertThat(n).isLessThanOrEqualTo(Math.max(1, slots));
      if (a.mode() == Intent.Mode.RATIO) {
        assertThat(n).isGreaterThanOrEqualTo(1);
      }
    }
  }

  @Example
  void parsesTheDocumentedForms() {
    assertThat(Intent.parse("4")).isEqualTo(new Intent.Fixed(4));
    assertThat(Intent.parse(" Adaptive ")).isEqualTo(new Intent.Adaptive(Intent.Mode.FULL, 0, 1.0));
    assertThat(Intent.parse("bounded( 4 )")).isEqualTo(new Intent.Adaptive(Intent.Mode.BOUNDED, 4, 1.0));
    assertThat(Intent.parse("RATIO(0.5)")).isEqualTo(new Intent.Adaptive(Intent.Mode.RATIO, 0, 0.5));
    assertThat(Intent.parse("ratio(.25)").render()).isEqualTo("ratio(0.25)");
    assertThat(Intent.parse("ratio(1)").render()).isEqualTo("ratio(1)");
    assertThat(Intent.bounded(4).render()).isEqualTo("bounded(4)");
    assertThat(Intent.adaptive().render()).isEqualTo("adaptive");
  }

  @Example
  void resolvesAgainstSlots() {
    assertThat(Intent.fixed(3).resolve(100)).isEqualTo(3);
    assertThat(Intent.adaptive().resolve(12)).isEqualTo(12);
    assertThat(Intent.bounded(4).resolve(12)).isEqualTo(4);
    assertThat(Intent.bounded(40).resolve(12)).isEqualTo(12);
    assertThat(Intent.ratio(0.5).resolve(7)).isEqualTo(3);
    assertThat(Intent.ratio(0.1).resolve(5)).isEqualTo(1);
    assertThat(Intent.ratio(0.29).resolve(100)).as("decimal, not binary, floor").isEqualTo(29);
  }

  @Example
  void refusesOtherFormsNamingTheValueAndTheForms() {
    for (String bad : new String[] {"0", "-1", "4 2", "", "fast", "bounded(0)", "bounded()", "bounded(x)", "ratio(0)", "ratio(1.5)",
        "ratio(-0.5)", "ratio(nan)", "99999999999", "bounded(4", "adaptive(2)"}) {
      assertThatThrownBy(() -> Intent.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("parallelism '" + bad + "' is not valid")
          .hasMessageContaining("'adaptive', 'bounded(N)'");
    }
    assertThatThrownBy(() -> new Intent.Adaptive(Intent.Mode.FULL, 3, 1.0)).hasMessageContaining("use Intent.adaptive()");
    assertThatThrownBy(() -> new Intent.Fixed(0)).hasMessageContaining("fixed parallelism 0 is not valid");
  }

  @Example
  void jobIntentRendersAndParses() {
    JobIntent i = JobIntent.adaptive().withOverride(3, Intent.bounded(2)).withOverride(1, Intent.fixed(4));
    assertThat(i.render()).isEqualTo("adaptive;1=4;3=bounded(2)");
    assertThat(JobIntent.parse(" adaptive ; 1 = 4 ; 3=bounded(2)")).isEqualTo(i);
    assertThat(i.intentFor(1)).isEqualTo(Intent.fixed(4));
    assertThat(i.intentFor(2)).isEqualTo(Intent.adaptive());
    assertThat(i.withoutOverride(1).withoutOverride(3)).isEqualTo(JobIntent.adaptive());
    assertThat(new JobIntent(Intent.fixed(2), new TreeMap<>())).isEqualTo(JobIntent.fixed(2));
    assertThatThrownBy(() -> JobIntent.parse("adaptive;x=4")).hasMessageContaining("override 'x=4' is not of the form");
    assertThatThrownBy(() -> JobIntent.parse("adaptive;1=4;1=5")).hasMessageContaining("fragment 1 is overridden twice");
    assertThatThrownBy(() -> JobIntent.parse("adaptive;1=zero")).hasMessageContaining("parallelism 'zero' is not valid");
  }
}
