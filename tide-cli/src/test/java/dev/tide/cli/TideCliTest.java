package dev.tide.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The command line end to end: a short playground, a tiny benchmark, and usage errors. */
class TideCliTest {
  /** Output and exit code of one command line. */
  record Run(int exitCode, String out, String err) {}

  static Run tide(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TideCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  /**
   * Help texts are format strings (picocli formats them): a bare percent sign ("90% of") breaks the
   * line, and picocli prints a warning with the help instead.
   */
  @Test
  void everyHelpTextIsAValidFormatString() {
    List<picocli.CommandLine> all = new java.util.ArrayList<>(List.of(new picocli.CommandLine(new TideCli())));
    for (int i = 0; i < all.size(); i++) {
      all.addAll(all.get(i).getSubcommands().values());
    }
    List<String> texts = new java.util.ArrayList<>();
    for (picocli.CommandLine c : all) {
      texts.addAll(List.of(c.getCommandSpec().usageMessage().description()));
      c.getCommandSpec().options().forEach(o -> texts.addAll(List.of(o.description())));
    }
    for (String t : texts) {
      org.assertj.core.api.Assertions.assertThatCode(() -> String.format(t)).as(t).doesNotThrowAnyException();
    }
    assertThat(all).hasSizeGreaterThan(20);
  }

  @Test
  void playgroundPrintsProgressSummaryAndBothViews(@TempDir Path dir) {
    Run r = tide("playground", "--duration", "6s", "--rate", "5000", "--barrier-interval", "200ms",
        "--nodes", "2", "--slots", "1", "--data-dir", dir.resolve("data").toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains(">> start q5", ">> start q7", "q5 events/s", "q7 rows");
    assertThat(r.out()).contains("Summary after", "events/s", "recoveries");
    Matcher rows = Pattern.compile("rows +q5 ([0-9,]+), q7 ([0-9,]+)").matcher(r.out());
    assertThat(rows.find()).as(r.out()).isTrue();
    assertThat(Long.parseLong(rows.group(1).replace(",", ""))).as("q5 rows").isPositive();
    assertThat(Long.parseLong(rows.group(2).replace(",", ""))).as("q7 rows").isPositive();
    // The newest rows of each view under its column names.
    assertThat(r.out()).containsPattern("View q5 .*newest of");
    assertThat(r.out()).containsPattern("\\n +auction +num +starttime\\n +[0-9]+ +[0-9]+ +20[0-9-]+ ");
    assertThat(r.out()).containsPattern("View q7 .*newest of");
    assertThat(r.out()).containsPattern("\\n +auction +price +bidder +date_time\\n +[0-9]+ +[0-9]+ +[0-9]+ +20");
    assertThat(r.out()).contains("Done; data kept in");
  }

  @Test
  void benchPrintsOneLinePerQueryAndMachineInfo() {
    Run r = tide("bench", "nexmark", "--query", "q0,q2", "--events", "20000", "--nodes", "1", "--slots", "2",
        "--barrier-interval", "100ms");

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("JVM ", "Machine ", "events/s/core", "CPU s/M events");
    assertThat(r.out()).containsPattern("\\nq0 +20,000 +[0-9.]+ ");
    assertThat(r.out()).containsPattern("\\nq2 +20,000 +[0-9.]+ ");
  }

  @Test
  void benchAutoscalePrintsItsTimelineAndWritesCsvAndPng(@TempDir Path dir) throws Exception {
    Run r = tide("bench", "autoscale", "--trace", "2000,2s:4000", "--duration", "4s", "--out", dir.toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("Tide autoscale benchmark: q5", "scheduled/s", "Actions: ", "recoveries 0");
    assertThat(r.out()).containsPattern("\\n +4 +4,000 +[0-9,]+ +[0-9,]+ +1 +\\{");
    assertThat(java.nio.file.Files.readAllLines(dir.resolve("timeline.csv")).get(0))
        .startsWith("seconds,scheduled_rate,events_per_second,backlog,nodes,actors_f");
    assertThat(javax.imageio.ImageIO.read(dir.resolve("autoscale.png").toFile()).getWidth()).isEqualTo(1100);
    Run bad = tide("bench", "autoscale", "--trace", "fast");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--trace 'fast': expected RATE[,OFFSET:RATE...]");
  }

  @Test
  void benchRescaleHotPrintsBothEndsOfEachRescaleAndWritesCsvAndPng(@TempDir Path dir) throws Exception {
    Run r = tide("bench", "rescale-hot", "--keys", "20000", "--warmup", "6s", "--phase", "6s", "--out", dir.toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("\\n1 -> 2 +source +[0-9,]+ MB +[0-9,]+ +[0-9,]+ ");
    assertThat(r.out()).containsPattern("\\n2 -> 1 +sink side +[0-9,]+ MB ");
    assertThat(r.out()).contains("recoveries: 0");
    List<String> csv = java.nio.file.Files.readAllLines(dir.resolve("timeline.csv"));
    assertThat(csv.get(0)).isEqualTo("seconds,source_rows_per_s,sink_rows_per_s");
    assertThat(csv).anyMatch(l -> l.startsWith("# ") && l.contains("request 1 -> 2"));
    assertThat(javax.imageio.ImageIO.read(dir.resolve("timeline.png").toFile()).getWidth()).isEqualTo(1100);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "bench rescale-hot --scale-to 1             | --scale-to",
      "bench rescale-hot --scale-to 9             | --scale-to",
      "bench rescale-hot --keys 0                 | --keys",
      "bench rescale-hot --warmup 1s              | --warmup",
      "playground --duration banana               | --duration",
      "playground --duration 0s                   | --duration",
      "playground --nodes 0                       | --nodes",
      "playground --slots -1                      | --slots",
      "playground --rate 0                        | --rate",
      "playground --barrier-interval 1ms          | --barrier-interval",
      "playground --frobnicate                    | --frobnicate",
      "bench nexmark --query q13                  | --query",
      "bench nexmark --query q1 --events 0        | --events",
      "bench nexmark --query q1 --timeout forever | --timeout",
      "bench nexmark                              | --query",
  })
  void badFlagsExitWithCodeTwoAndOneLineNamingTheOption(String args, String option) {
    Run r = tide(args.trim().split(" +"));

    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains(option).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void missingSubcommandIsAUsageError() {
    assertThat(tide().exitCode()).isEqualTo(2);
    assertThat(tide("bench").exitCode()).isEqualTo(2);
    assertThat(tide("--help").exitCode()).isZero();
  }

  @Test
  void benchHelpListsTheBenchModuleCommands() {
    Run r = tide("bench", "--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("nexmark", "rescale", "rescale-hot").containsPattern("\\n  compare +Nexmark throughput")
        .containsPattern("\\n  rescale-compare +").containsPattern("\\n  jmh +").containsPattern("\\n  plot +");
  }

  @Test
  void helpNamesTheOptionsCommandThatExists() {
    Run r = tide("--help");
    assertThat(r.out()).containsPattern("\\n +options +");
  }
}
