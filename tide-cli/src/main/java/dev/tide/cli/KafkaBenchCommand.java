package dev.tide.cli;

import dev.tide.cli.bench.KafkaBench;
import dev.tide.cli.bench.MachineInfo;
import dev.tide.common.config.Durations;
import dev.tide.meta.MetaOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tide bench kafka}: Kafka topic → count and top price per auction → upsert Kafka topic, on an in-process cluster. */
@Command(name = "kafka", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Measures Kafka in, a stateful query, Kafka out, exactly once.",
        "",
        "Starts a one-broker KRaft cluster in this JVM (Kafka's test kit; logs in a temporary directory),",
        "fills a topic with JSON bids, then runs on a fresh in-process cluster a job that counts bids and",
        "keeps the top price per auction into an upsert topic (Kafka transactions) and a view. Prints",
        "events/s from submission until every bid is counted in a committed epoch (job start included)",
        "and over the steady part (10%% to 90%% of the bids), then checks the output topic.",
        "The broker shares the machine and this JVM with the job: the figure is Tide and Kafka together.",
        ""})
final class KafkaBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--events", defaultValue = "10000000", description = "Bids in the input topic (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(names = "--partitions", defaultValue = "8", description = "Partitions of the input topic, the source's splits (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--auctions", defaultValue = "10000", description = "Distinct auctions, the query's groups (default: ${DEFAULT-VALUE}).")
  int auctions;

  @Option(names = "--format", defaultValue = "json",
      description = "Record format of bids and counts: json, or avro (bare Avro, the bid schema given to the source inline; default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--nodes", defaultValue = "1", description = "Compute nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--slots", description = "Slots per compute node (default: the number of cores).")
  Integer slots;

  @Option(names = "--barrier-interval", defaultValue = "250ms", converter = OptionChecks.DurationConverter.class,
      description = "Time between checkpoint barriers; the sink publishes once per committed epoch (default: ${DEFAULT-VALUE}).")
  Duration barrierInterval;

  @Option(names = "--timeout", defaultValue = "30min", converter = OptionChecks.DurationConverter.class,
      description = "Give up after this long (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    OptionChecks.range(spec, "--events", events, 1, 2_000_000_000L);
    OptionChecks.range(spec, "--partitions", partitions, 1, 4096);
    OptionChecks.range(spec, "--auctions", auctions, 1, 10_000_000);
    OptionChecks.range(spec, "--nodes", nodes, 1, 64);
    int s = slots == null ? MachineInfo.cores() : slots;
    OptionChecks.range(spec, "--slots", s, 1, 256);
    OptionChecks.rule(spec, "--barrier-interval", MetaOptions.BARRIER_INTERVAL, barrierInterval, Durations.format(barrierInterval));
    OptionChecks.range(spec, "--timeout", timeout, Duration.ofSeconds(1), Duration.ofHours(24));
    if (!format.equals("json") && !format.equals("avro")) {
      throw OptionChecks.invalid(spec, "--format", format, "must be json or avro");
    }
    KafkaBench.Settings settings = new KafkaBench.Settings(events, partitions, auctions, nodes, s, barrierInterval, timeout,
        format.equals("avro"));

    PrintWriter out = spec.commandLine().getOut();
    out.println("Tide Kafka benchmark");
    MachineInfo.lines().forEach(out::println);
    out.printf(Locale.ROOT, "Setup    one KRaft broker in this JVM; topic bids: %,d %s bids over %,d auctions in %d partitions%n",
        events, format.equals("avro") ? "Avro" : "JSON", auctions, partitions);
    out.printf(Locale.ROOT, "         count and top price per auction -> upsert topic counts (exactly once) and a view;%n"
        + "         %d compute node(s) x %d slots, barrier interval %s, one run%n", nodes, s, Durations.format(barrierInterval));
    out.flush();
    KafkaBench.Result r = new KafkaBench(settings).run(line -> {
      out.println("         ... " + line);
      out.flush();
    });
    out.printf(Locale.ROOT, "Fill     %,d bids in %.1f s (%,.0f bids/s, not part of the figures)%n", r.events(), r.fillNanos() / 1e9,
        r.events() * 1e9 / r.fillNanos());
    if (!r.finished()) {
      out.printf(Locale.ROOT, "Result   timed out after %s with %,d of %,d bids counted%n", Durations.format(timeout), r.counted(), r.events());
      return TideCli.EXIT_FAILED;
    }
    out.printf(Locale.ROOT, "Result   %,d bids counted %.2f s after submission: %,.0f events/s end to end (job start included)%n",
        r.events(), r.runNanos() / 1e9, r.eventsPerSecond());
    out.printf(Locale.ROOT, "         steady part (10%% to 90%% of the bids): %,.0f events/s%s%n", r.steadyEventsPerSecond(),
        r.recoveries() > 0 ? "; " + r.recoveries() + " recoveries" : "");
    out.println("Output   " + r.outputNote());
    out.flush();
    return r.outputOk() ? TideCli.EXIT_OK : TideCli.EXIT_FAILED;
  }
}
