package dev.tide.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tide.cli.RescaleBenchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The rescale benchmark: a tiny run end to end (output shape only, no timing assertions), bad
 * options, and the analysis on hand-built commits.
 */
class RescaleBenchTest {
  /** Output and exit code of one run of the command. */
  record Run(int exitCode, String out, String err) {}

  static Run rescale(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new RescaleBenchCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void tinyRunPrintsATimelinePerStateSizeAndASummaryRowPerReschedule() {
    Run r = rescale("--state-sizes", "1MB", "--rate", "5000", "--barrier-interval", "200ms", "--quiet", "1s",
        "--settle-timeout", "20s");

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("Tide rescale benchmark", "JVM ", "Machine ", "parallelism 2 -> 4 -> 2", "State 1 MB");
    assertThat(r.out()).containsPattern("backfilled [0-9,]+ events in [0-9.]+ s");
    assertThat(r.out()).containsPattern("window +2 -> 4 from s +events/s +4 -> 2 from s +events/s");
    assertThat(r.out()).containsPattern("\\n +0 +[+-][0-9.]+ +[0-9,]+ +[+-][0-9.]+ +[0-9,]+\\n");
    assertThat(r.out()).contains("Summary", "request->commit ms", "stall ms all", "stall ms worst", "s to steady");
    String figures = " +[0-9.]+ [KMG]?B +%s +[0-9,]+ +([0-9,]+|n/a) +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+ +([0-9.]+|not settled) +[0-9,]+ +[0-9,]+";
    assertThat(r.out()).containsPattern("\\n +1 MB" + figures.formatted("2 -> 4"));
    assertThat(r.out()).containsPattern("\\n +1 MB" + figures.formatted("4 -> 2"));
    assertThat(r.out()).contains("How it is measured");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--state-sizes 10XB                  | --state-sizes",
      "--state-sizes 0MB                   | --state-sizes",
      "--rate 0                            | --rate",
      "--scale-out-to 2                    | --scale-out-to",
      "--scale-out-to 5                    | --scale-out-to",
      "--parallelism 0                     | --parallelism",
      "--barrier-interval 1ms              | --barrier-interval",
      "--settle-timeout soon               | --settle-timeout",
  })
  void badOptionsExitWithCodeTwoNamingTheOption(String args, String option) {
    Run r = rescale(args.trim().split(" +"));

    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains(option);
    assertThat(r.out()).isEmpty();
  }

  // ---------------------------------------------------------------- analysis on hand-built commits

  private static final double RATE = 10_000; // event ids per second, so 10 ids per ms
  private static final long MS = 1_000_000;

  /** Commits every 1000 ms; {@code stallMs[k][s]}: how long split s stood still in window k (ends at commit k+1). */
  private static List<RescaleCommit> commits(int windows, int splits, double[][] stallMs) {
    List<RescaleCommit> out = new ArrayList<>();
    long[] ids = new long[splits];
    for (int k = 0; k <= windows; k++) {
      if (k > 0) {
        for (int s = 0; s < splits; s++) {
          double stall = stallMs == null || stallMs[k - 1] == null ? 0 : stallMs[k - 1][s];
          ids[s] += Math.round((1000 - stall) * RATE / 1000);
        }
      }
      long inject = k * 1000 * MS;
      out.add(new RescaleCommit(k + 1, inject + 20 * MS, inject, 20, ids.clone(), 1000, 1));
    }
    return out;
  }

  @Test
  void aSourceOnScheduleHasNoStallAndIsSteadyAtOnce() {
    List<RescaleCommit> c = commits(12, 4, null);

    RescaleOutcome o = RescaleAnalysis.analyze("2 -> 4", c, 5990 * MS, 6100 * MS, 7, RATE);

    assertThat(o.requestToCommitMs()).isCloseTo(110, within(1e-9));
    assertThat(o.barrierLatencyMs()).isEqualTo(20);
    assertThat(o.allSplitsStallMs()).isCloseTo(0, within(0.5));
    assertThat(o.worstSplitStallMs()).isCloseTo(0, within(0.5));
    assertThat(o.noiseFloorMs()).isCloseTo(0, within(0.5));
    assertThat(o.steadyBefore()).isTrue();
    assertThat(o.eventsPerSecondBefore()).isCloseTo(RATE, within(1.0));
    assertThat(o.eventsPerSecondAfter()).isCloseTo(RATE, within(1.0));
    assertThat(o.secondsToSteady()).isCloseTo(0.01, within(1e-9)); // window 0 starts 10 ms after the request
    assertThat(o.timeline()).extracting(RescaleOutcome.Point::index).containsExactly(-3, -2, -1, 0, 1, 2, 3, 4, 5);
  }

  @Test
  void splitsMovedToNewActorsStallWhileTheOthersRunOn() {
    double[][] stall = new double[12][];
    stall[6] = new double[] {0, 0, 300, 300}; // window 0: the reschedule's barrier is injected at 6,000 ms (commit 7)

    RescaleOutcome o = RescaleAnalysis.analyze("2 -> 4", commits(12, 4, stall), 5990 * MS, 6100 * MS, 7, RATE);

    assertThat(o.worstSplitStallMs()).isCloseTo(300, within(0.5));
    assertThat(o.allSplitsStallMs()).isCloseTo(0, within(0.5));
    assertThat(o.timeline()).filteredOn(p -> p.index() == 0).singleElement()
        .satisfies(p -> assertThat(p.eventsPerSecond()).isCloseTo(8_500, within(1.0)));
  }

  @Test
  void aStopOfEverySplitAcrossTwoWindowsCountsOnce() {
    double[][] stall = new double[12][];
    stall[6] = new double[] {150, 150, 150};
    stall[7] = new double[] {100, 100, 100};

    RescaleOutcome o = RescaleAnalysis.analyze("4 -> 2", commits(12, 3, stall), 5990 * MS, 6100 * MS, 7, RATE);

    assertThat(o.allSplitsStallMs()).isCloseTo(250, within(0.5));
    assertThat(o.worstSplitStallMs()).isCloseTo(250, within(0.5));
  }

  @Test
  void outputMadeUpLaterReducesTheStallToItsPeak() {
    double[][] stall = new double[12][];
    stall[6] = new double[] {200, 200};
    stall[7] = new double[] {-150, -150}; // catch-up: ahead of the schedule in the next window
    stall[8] = new double[] {100, 100};

    RescaleOutcome o = RescaleAnalysis.analyze("4 -> 2", commits(12, 2, stall), 5990 * MS, 6100 * MS, 7, RATE);

    assertThat(o.allSplitsStallMs()).isCloseTo(200, within(0.5));
  }

  @Test
  void secondsToSteadyRunFromTheRequestToTheFirstOfThreeWindowsInTheBand() {
    double[][] stall = new double[14][];
    stall[6] = new double[] {600, 600};
    stall[7] = new double[] {300, 300};
    stall[8] = new double[] {50, 50}; // within 10 %

    RescaleOutcome o = RescaleAnalysis.analyze("2 -> 4", commits(14, 2, stall), 5990 * MS, 6100 * MS, 7, RATE);

    assertThat(o.secondsToSteady()).isCloseTo(2.01, within(1e-9)); // window 2 starts at 8,000 ms
    assertThat(o.eventsPerSecondAfter()).isCloseTo(RATE * (6000 - 50) / 6000, within(1.0)); // windows 2 to 7
    assertThat(o.timeline()).extracting(RescaleOutcome.Point::index).containsExactly(-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7);

    List<RescaleCommit> untilSteady = commits(14, 2, stall).subList(0, 12); // windows up to 4
    assertThat(RescaleAnalysis.analyze("2 -> 4", untilSteady, 5990 * MS, 6100 * MS, 7, RATE).eventsPerSecondAfter())
        .isCloseTo(RATE * (3000 - 50) / 3000, within(1.0));
  }

  @Test
  void throughputThatNeverSettlesIsReportedSo() {
    double[][] stall = new double[12][];
    for (int k = 6; k < 12; k++) {
      stall[k] = new double[] {500, 500};
    }

    RescaleOutcome o = RescaleAnalysis.analyze("2 -> 4", commits(12, 2, stall), 5990 * MS, 6100 * MS, 7, RATE);

    assertThat(o.settled()).isFalse();
    assertThat(o.eventsPerSecondAfter()).isCloseTo(RATE / 2, within(1.0));
    assertThat(RescaleAnalysis.settled(commits(12, 2, stall), 7, 3, 100)).isFalse();
    assertThat(RescaleAnalysis.settled(commits(12, 2, null), 7, 3, 100)).isTrue();
  }

  @Test
  void skewIsTheSpreadOfTheSplitsSchedulesAtTheRequest() {
    RescaleCommit c = new RescaleCommit(1, 0, 0, 1, new long[] {1000, 1500, 1200}, 0, 0);

    assertThat(RescaleAnalysis.skewMs(c, RATE)).isCloseTo(50, within(1e-9));
  }
}
