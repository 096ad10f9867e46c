package dev.tide.cli.bench;

import dev.tide.cli.TempDirs;
import dev.tide.cli.logging.ShutdownLogs;
import dev.tide.cluster.EmbeddedKafka;
import dev.tide.cluster.LocalCluster;
import dev.tide.common.config.Config;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.AvroFormat;
import dev.tide.connectors.format.RowFormat;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Kafka in, stateful query, Kafka out, measured: an embedded one-broker KRaft cluster in this JVM
 * ({@link EmbeddedKafka}), a topic filled with {@code events} JSON bids before the clock starts, and
 * a job on a fresh {@link LocalCluster} that counts bids and keeps the top price per auction into an
 * upsert topic, exactly once (Kafka transactions), and into a view. Bids and counts are JSON, or
 * bare Avro ({@link Settings#avro}). The clock starts at submission;
 * progress is the sum of the committed view's counts, sampled every {@link #POLL_MS} ms. The run ends
 * when every bid is counted; the output topic is then read (read_committed, not timed) and checked
 * against the counts of the produced bids.
 */
public final class KafkaBench {
  static final long POLL_MS = 100;

  /**
   * @param events bids in the topic
   * @param partitions partitions of the input topic (and the source's splits)
   * @param auctions distinct auctions (the query's groups)
   * @param nodes compute nodes
   * @param slotsPerNode slots per node
   * @param barrierInterval checkpoint interval (the sink publishes once per committed epoch)
   * @param timeout a run still unfinished after this is reported as timed out
   * @param avro bids and counts as bare Avro (the source given the bid schema inline, the sink its derived schema), else JSON
   */
  public record Settings(long events, int partitions, int auctions, int nodes, int slotsPerNode, Duration barrierInterval,
      Duration timeout, boolean avro) {}

  /** The bids' Avro schema with {@link Settings#avro}. */
  static final String BID_SCHEMA = "{\"type\":\"record\",\"name\":\"Bid\",\"fields\":[{\"name\":\"auction\",\"type\":\"long\"},"
      + "{\"name\":\"bidder\",\"type\":\"long\"},{\"name\":\"price\",\"type\":\"long\"},"
      + "{\"name\":\"date_time\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
  private static final Schema BID_COLUMNS = RowFormat.parseColumns("auction bigint, bidder bigint, price bigint, date_time timestamp");
  private static final Schema COUNT_COLUMNS = RowFormat.parseColumns("auction bigint, bids bigint, top bigint");

  /**
   * @param fillNanos time to produce the input
   * @param runNanos submission until every bid was counted in a committed epoch (0 if timed out)
   * @param steadyEventsPerSecond rate between 10% and 90% of the events counted
   * @param counted bids counted when the run ended
   * @param outputOk the upsert topic's last record per auction equals the reference
   */
  public record Result(long events, long fillNanos, long runNanos, double steadyEventsPerSecond, long counted, long recoveries,
      boolean finished, boolean outputOk, String outputNote) {
    public double eventsPerSecond() {
      return runNanos <= 0 ? 0 : events * 1e9 / runNanos;
    }
  }

  private final Settings settings;

  public KafkaBench(Settings settings) {
    this.settings = settings;
  }


  /** Runs the benchmark; {@code progress} gets a line per phase. */
  public Result run(Consumer<String> progress) throws Exception {
    Path dir = Files.createTempDirectory("tide-bench-kafka-");
    try (EmbeddedKafka kafka = new EmbeddedKafka()) {
      kafka.createTopic("bids", settings.partitions());
      kafka.createTopic("counts", 4);
      progress.accept("broker up at " + kafka.bootstrap() + "; filling topic bids");
      long[] count = new long[settings.auctions()];
      long[] top = new long[settings.auctions()];
      long fill0 = System.nanoTime();
      fill(kafka, count, top);
      long fillNanos = System.nanoTime() - fill0;
      progress.accept(String.format(java.util.Locale.ROOT, "filled in %.1f s; submitting the job", fillNanos / 1e9));

      PlanBuilder b = new PlanBuilder("kafka_bench");
      Map<String, String> src = new HashMap<>();
      src.put("bootstrap.servers", kafka.bootstrap());
      src.put("topic", "bids");
      src.put("splits", String.valueOf(settings.partitions()));
      if (settings.avro()) {
        src.put("format", "avro");
        src.put("avro.schema", BID_SCHEMA);
      } else {
        src.put("columns", "auction bigint, bidder bigint, price bigint, date_time timestamp");
      }
      PlanBuilder.Stream counts = b.source("kafka", "bids", src).groupBy("auction").agg(Agg.count("bids"), Agg.max("price", "top"));
      counts.materialize("kafka_bench");
      counts.sink("kafka", Map.of("bootstrap.servers", kafka.bootstrap(), "topic", "counts", "mode", "upsert",
          "format", settings.avro() ? "avro" : "json"));

      Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, settings.barrierInterval());
      ShutdownLogs.restore();
      LocalCluster cluster = new LocalCluster(dir, config, settings.nodes(), settings.slotsPerNode());
      try {
        long start = System.nanoTime();
        JobDefinition job = cluster.submit(b.build());
        long deadline = start + settings.timeout().toNanos();
        long at10 = -1;
        long at90 = -1;
        long counted = 0;
        long now;
        while (true) {
          counted = cluster.scan(job.getName()).stream().mapToLong(r -> (Long) r[1]).sum();
          now = System.nanoTime();
          if (at10 < 0 && counted >= settings.events() / 10) {
            at10 = now;
          }
          if (at90 < 0 && counted >= settings.events() * 9 / 10) {
            at90 = now;
          }
          if (counted >= settings.events() || now >= deadline) {
            break;
          }
          TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
        boolean finished = counted >= settings.events();
        double steady = at10 > 0 && at90 > at10 ? (settings.events() * 9 / 10 - settings.events() / 10) * 1e9 / (at90 - at10) : 0;
        long recoveries = cluster.meta().stats().recoveries();
        String note = "not checked (the run did not finish)";
        boolean ok = false;
        if (finished) {
          progress.accept("all bids counted; reading the output topic (read_committed)");
          // the sink publishes an epoch at the barrier after it commits: wait for the last one
          long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
          do {
            note = checkOutput(kafka.readCommittedBytes("counts"), count, top, settings.avro());
            ok = note.isEmpty();
          } while (!ok && System.nanoTime() < until && sleep(settings.barrierInterval().toMillis() * 2));
          if (ok) {
            note = String.format(java.util.Locale.ROOT, "topic counts: the last record of each of the %,d auctions equals its count and top price",
                nonZero(count));
          }
        }
        return new Result(settings.events(), fillNanos, finished ? now - start : 0, steady, counted, recoveries, finished, ok, note);
      } finally {
        ShutdownLogs.quietly(cluster::close);
      }
    } finally {
      TempDirs.deleteTree(dir);
    }
  }

  private static boolean sleep(long ms) {
    try {
      Thread.sleep(ms);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void fill(EmbeddedKafka kafka, long[] count, long[] top) {
    SplittableRandom random = new SplittableRandom(42);
    AvroFormat.Writer avro = settings.avro() ? new AvroFormat.Writer(AvroFormat.parse(BID_SCHEMA), BID_COLUMNS, new int[] {0, 1, 2, 3}, -1) : null;
    List<ProducerRecord<byte[], byte[]>> batch = new ArrayList<>();
    for (long i = 0; i < settings.events(); i++) {
      int a = random.nextInt(settings.auctions());
      long bidder = random.nextInt(1_000_000);
      long price = 1 + random.nextInt(10_000);
      long time = 1_700_000_000_000L + i;
      count[a]++;
      top[a] = Math.max(top[a], price);
      byte[] value = avro != null ? avro.encode(new Object[] {(long) a, bidder, price, time})
          : ("{\"auction\":" + a + ",\"bidder\":" + bidder + ",\"price\":" + price + ",\"date_time\":" + time + "}")
              .getBytes(StandardCharsets.UTF_8);
      batch.add(new ProducerRecord<>("bids", (int) (i % settings.partitions()), null, value));
      if (batch.size() == 200_000 || i == settings.events() - 1) {
        kafka.produceBytes(batch);
        batch.clear();
      }
    }
  }

  /** Empty if the last record per auction equals the reference, else what differs. */
  static String checkOutput(List<ConsumerRecord<byte[], byte[]>> records, long[] count, long[] top, boolean avro) {
    Map<String, long[]> last = new HashMap<>();
    AvroFormat.Reader reader = avro
        ? new AvroFormat.Reader(AvroFormat.recordFor(AvroFormat.avroName("counts"), COUNT_COLUMNS, new int[] {0, 1, 2}), COUNT_COLUMNS) : null;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String k = java.util.Arrays.toString(r.key());
      if (r.value() == null) {
        last.remove(k);
      } else if (reader != null) {
        Object[] row = new Object[3];
        reader.decode(r.value(), 0, row);
        last.put(k, new long[] {(Long) row[0], (Long) row[1], (Long) row[2]});
      } else {
        String v = new String(r.value(), StandardCharsets.UTF_8);
        last.put(k, new long[] {Long.parseLong(v.replaceAll(".*\"auction\":(\\d+).*", "$1")),
            Long.parseLong(v.replaceAll(".*\"bids\":(\\d+).*", "$1")), Long.parseLong(v.replaceAll(".*\"top\":(\\d+).*", "$1"))});
      }
    }
    int seen = 0;
    for (long[] v : last.values()) {
      int a = (int) v[0];
      long n = v[1];
      long t = v[2];
      if (a >= count.length || n != count[a] || t != top[a]) {
        return "auction " + a + ": topic has count " + n + " top " + t + ", expected " + (a < count.length ? count[a] + " top " + top[a] : "none");
      }
      seen++;
    }
    long expected = nonZero(count);
    return seen == expected ? "" : "topic has " + seen + " auctions, expected " + expected;
  }

  private static long nonZero(long[] count) {
    return java.util.Arrays.stream(count).filter(c -> c > 0).count();
  }

}
