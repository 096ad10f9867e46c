package dev.tide.connectors.kafka;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.AvroFormat;
import dev.tide.connectors.format.RowFormat;
import dev.tide.connectors.format.SchemaRegistry;
import dev.tide.proto.plan.SourceNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.SourceOperator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.state.StateTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads one Kafka topic. Splits are partition buckets: partition {@code p} belongs to split
 * {@code p mod splits}, so a reschedule that moves a split moves its partitions, and a partition
 * added to the topic joins its bucket's owner at the next discovery (read from its beginning).
 *
 * <p>Exactly once: the state table holds, per partition, the offset of the next record to emit
 * (row {@code (partition, offset)}); it is written at each barrier for the partitions that moved, so
 * it commits with the epoch that holds their rows. Per split a row {@code (-1 - split, skipped)}
 * holds the malformed records skipped in the split's partitions so far, committed the same way; its
 * presence also says the split has started: a partition of a started split without an offset is
 * new and read from its beginning, while those of a split that has not started begin at
 * {@code start-position} (resolved when the actor first reads them; written at the next barrier, so
 * a crash before that epoch commits resolves it again). Offsets are read, and the consumer assigned and
 * positioned, lazily after the first barrier (the actor reads nothing before its previous epoch
 * commits) and again after every split change; records fetched but not emitted are dropped then.
 * The consumer has no group and commits nothing to Kafka; {@code read_committed} isolation.
 *
 * <p>Malformed records: with {@code on-error=fail} the actor fails naming topic, partition and
 * offset (the job recovers and fails again at the same record); with {@code skip} they are counted
 * ({@link #skipped()}, reported with the actor's load at each barrier) and passed. A schema registry
 * that cannot be reached fails the actor whatever {@code on-error} says: that is not the record's fault.
 *
 * <p>Watermark on the event-time column, if set: the least over the actor's partitions that have
 * emitted rows of the largest event time emitted, minus the delay; it never falls, and restarts from
 * nothing at a reschedule barrier. Thread-safety: confined to the actor thread, except
 * {@link #backlog(long)} and {@link #skipped()}.
 */
public final class KafkaSourceOp implements SourceOperator {
  private static final long IDLE_WAIT_NANOS = 5_000_000L;

  private final KafkaSourceOptions options;
  private final Schema columns;
  private final int splitCount;
  private final int stateTableId;
  private final ActorContext ctx;
  private final ChunkBuilder builder;
  private final int timeColumn;
  private final Object[] row;
  /** The columns emitted (indexes into the full schema; the planner prunes unread ones) and their row. */
  private final int[] emitted;
  private final Object[] outRow;
  /** Output index of the event-time column, or -1 if it has none or it is pruned. */
  private final int timeOutput;
  private StateTable state;
  private KafkaConsumer<byte[], byte[]> consumer;
  private List<Integer> splits = List.of();
  /** Next offset to emit per assigned partition; null until loaded. */
  private TreeMap<Integer, Long> offsets;
  private final Map<Integer, Long> stored = new TreeMap<>();
  private final Map<Integer, Long> maxEventTime = new TreeMap<>();
  /** Malformed records skipped per owned split (including what earlier epochs committed); null until loaded. */
  private TreeMap<Integer, Long> skippedBySplit;
  private final Map<Integer, Long> storedSkipped = new TreeMap<>();
  private final AvroFormat.Reader avroReader;
  private final SchemaRegistry registry;
  /** Readers by writer-schema id (registry). */
  private final Map<Integer, AvroFormat.Reader> readers = new HashMap<>();
  private Iterator<ConsumerRecord<byte[], byte[]>> pending;
  private boolean started;
  private boolean paused;
  private long watermark = Long.MIN_VALUE;
  private long nextDiscoveryMs;
  private volatile long backlog = -1;
  private volatile long skipped = -1;

  public KafkaSourceOp(SourceNode node, ActorContext ctx) {
    this.options = KafkaSourceOptions.parse(node.getOptionsMap());
    this.columns = options.columns();
    this.splitCount = node.getSplitCount();
    this.stateTableId = node.getStateTableId();
    this.ctx = ctx;
    Schema full = options.schema();
    this.emitted = node.getColumnsCount() == 0 ? java.util.stream.IntStream.range(0, full.size()).toArray()
        : node.getColumnsList().stream().mapToInt(Integer::intValue).toArray();
    DataType[] types = new DataType[emitted.length];
    for (int i = 0; i < emitted.length; i++) {
      types[i] = full.type(emitted[i]);
    }
    this.builder = new ChunkBuilder(types, StreamChunk.DEFAULT_CAPACITY);
    this.timeColumn = options.eventTimeColumn().isEmpty() ? -1 : columns.indexOf(options.eventTimeColumn());
    int out = -1;
    for (int i = 0; i < emitted.length; i++) {
      if (emitted[i] == timeColumn) {
        out = i;
      }
    }
    this.timeOutput = out;
    this.row = new Object[full.size()];
    this.outRow = new Object[emitted.length];
    this.avroReader = options.avroSchema() == null ? null : new AvroFormat.Reader(options.avroSchema(), columns);
    this.registry = options.registryUrl().isEmpty() ? null : new SchemaRegistry(options.registryUrl(), options.registryAuth(),
        options.requestTimeout());
  }

  @Override
  public void open() {
    state = ctx.table(stateTableId);
    paused = ctx.startsPaused();
    updateSplits(ctx.splits());
  }

  @Override
  public void updateSplits(List<Integer> newSplits) {
    splits = List.copyOf(newSplits);
    offsets = null;
    skippedBySplit = null;
    skipped = splits.isEmpty() ? 0 : -1; // the gained splits' counts are read with their offsets
    pending = null;
    maxEventTime.clear();
    if (consumer != null) {
      consumer.assign(List.of());
    }
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    if (consumer == null) {
      Properties p = new Properties();
      p.putAll(options.client());
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      p.put(ConsumerConfig.CLIENT_ID_CONFIG, "tide-source-" + ctx.jobId() + "-" + ctx.actorId());
      p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) options.requestTimeout().toMillis());
      p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) options.requestTimeout().toMillis());
      consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    return consumer;
  }

  /** The partitions of the topic in this actor's splits, ascending. */
  private TreeSet<Integer> ownedPartitions() {
    List<PartitionInfo> infos;
    try {
      infos = consumer().partitionsFor(options.topic(), options.requestTimeout());
    } catch (TimeoutException e) {
      throw new IllegalStateException("kafka source: brokers " + options.bootstrap() + " did not answer within "
          + options.requestTimeout().toMillis() + " ms listing the partitions of topic '" + options.topic()
          + "'; the job recovers once they are reachable", e);
    }
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("kafka source: topic '" + options.topic() + "' does not exist on " + options.bootstrap()
          + "; create it (the source does not)");
    }
    TreeSet<Integer> owned = new TreeSet<>();
    for (PartitionInfo i : infos) {
      if (splits.contains(i.partition() % splitCount)) {
        owned.add(i.partition());
      }
    }
    return owned;
  }

  /** Loads the committed offsets of the owned partitions and positions the consumer there. */
  private void ensureLoaded() {
    if (offsets != null) {
      return;
    }
    TreeMap<Integer, Long> o = new TreeMap<>();
    TreeMap<Integer, Long> skips = new TreeMap<>();
    List<Integer> unstarted = new ArrayList<>();
    for (int s : splits) {
      Object[] m = state.get(new Object[] {-1 - s});
      skips.put(s, m == null ? 0L : (Long) m[1]);
      if (m == null) {
        unstarted.add(s);
      }
    }
    List<Integer> fresh = new ArrayList<>();
    for (int p : ownedPartitions()) {
      Object[] r = state.get(new Object[] {p});
      o.put(p, r == null ? 0L : (Long) r[1]);
      if (r == null && unstarted.contains(p % splitCount)) {
        fresh.add(p);
      }
    }
    stored.clear();
    stored.putAll(o);
    if (options.startPosition() != KafkaSourceOptions.StartPosition.EARLIEST) {
      startPositions(fresh).forEach((p, off) -> {
        o.put(p, off);
        stored.remove(p); // written at the next barrier, with the split's start marker
      });
    }
    assign(o);
    storedSkipped.clear();
    skips.forEach((split, n) -> {
      if (!unstarted.contains(split)) {
        storedSkipped.put(split, n);
      }
    });
    skippedBySplit = skips;
    skipped = skips.values().stream().mapToLong(Long::longValue).sum();
    offsets = o;
    nextDiscoveryMs = ctx.clock().nowMillis() + options.discoveryInterval().toMillis();
  }

  /** The start-position offsets of {@code partitions}: their log end (latest) or the first offset at or after the timestamp. */
  private Map<Integer, Long> startPositions(List<Integer> partitions) {
    Map<Integer, Long> out = new TreeMap<>();
    if (partitions.isEmpty()) {
      return out;
    }
    List<TopicPartition> tps = partitions.stream().map(p -> new TopicPartition(options.topic(), p)).toList();
    try {
      Map<TopicPartition, Long> end = consumer().endOffsets(tps, options.requestTimeout());
      Map<TopicPartition, OffsetAndTimestamp> at = Map.of();
      if (options.startPosition() == KafkaSourceOptions.StartPosition.TIMESTAMP) {
        Map<TopicPartition, Long> query = new HashMap<>();
        tps.forEach(tp -> query.put(tp, options.startTimestampMs()));
        at = consumer.offsetsForTimes(query, options.requestTimeout());
      }
      for (TopicPartition tp : tps) {
        OffsetAndTimestamp t = at.get(tp);
        out.put(tp.partition(), t != null ? t.offset() : end.get(tp)); // no record at or after the time: the end
      }
      return out;
    } catch (TimeoutException e) {
      throw new IllegalStateException("kafka source: brokers " + options.bootstrap() + " did not answer within "
          + options.requestTimeout().toMillis() + " ms resolving start-position " + options.startPosition().name().toLowerCase(java.util.Locale.ROOT)
          + " of topic '" + options.topic() + "'; the job recovers once they are reachable", e);
    }
  }

  private void assign(TreeMap<Integer, Long> o) {
    List<TopicPartition> tps = new ArrayList<>();
    o.keySet().forEach(p -> tps.add(new TopicPartition(options.topic(), p)));
    consumer().assign(tps);
    // seek to 0 is clamped to the log start by auto.offset.reset=earliest when 0 was deleted
    o.forEach((p, off) -> consumer.seek(new TopicPartition(options.topic(), p), off));
    pending = null;
  }

  @Override
  public StreamChunk next(long nowNanos) {
    if (!started || paused || splits.isEmpty()) {
      return null;
    }
    ensureLoaded();
    if (offsets.isEmpty()) {
      return null;
    }
    if (pending == null || !pending.hasNext()) {
      pending = consumer.poll(Duration.ZERO).iterator();
    }
    while (pending.hasNext()) {
      ConsumerRecord<byte[], byte[]> r = pending.next();
      offsets.put(r.partition(), r.offset() + 1);
      if (!decode(r)) {
        continue;
      }
      if (timeColumn >= 0 && row[timeColumn] != null) {
        maxEventTime.merge(r.partition(), (Long) row[timeColumn], Math::max);
      }
      for (int i = 0; i < emitted.length; i++) {
        outRow[i] = row[emitted[i]];
      }
      StreamChunk full = builder.appendRow(Op.INSERT.code(), outRow);
      if (full != null) {
        return full;
      }
    }
    return builder.take();
  }

  /** Fills {@link #row}; false if the record is skipped. */
  private boolean decode(ConsumerRecord<byte[], byte[]> r) {
    try {
      switch (options.format()) {
        case JSON -> RowFormat.decodeJson(r.value(), columns, row);
        case TEXT -> row[0] = RowFormat.text(r.value());
        case AVRO -> decodeAvro(r.value());
      }
    } catch (IllegalArgumentException e) {
      if (options.skipErrors()) {
        skippedBySplit.merge(r.partition() % splitCount, 1L, Long::sum);
        skipped++;
        return false;
      }
      throw new IllegalStateException("kafka source: malformed record at topic '" + r.topic() + "' partition " + r.partition()
          + " offset " + r.offset() + " (format " + options.format().name().toLowerCase(java.util.Locale.ROOT) + "): " + e.getMessage()
          + "; fix or delete the record, or set on-error=skip", e);
    }
    row[row.length - 2] = r.partition();
    row[row.length - 1] = r.offset();
    return true;
  }

  private void decodeAvro(byte[] value) {
    if (registry == null) {
      avroReader.decode(value, 0, row);
      return;
    }
    int id = AvroFormat.schemaId(value);
    AvroFormat.Reader reader = readers.get(id);
    if (reader == null) {
      reader = new AvroFormat.Reader(registry.schema(id), columns);
      readers.put(id, reader);
    }
    reader.decode(value, 5, row);
  }

  @Override
  public long nanosUntilReady(long nowNanos) {
    if (!started || paused || splits.isEmpty()) {
      return Long.MAX_VALUE;
    }
    if (offsets == null || (pending != null && pending.hasNext())) {
      return 0;
    }
    return offsets.isEmpty() ? Long.MAX_VALUE : IDLE_WAIT_NANOS;
  }

  @Override
  public boolean ended() {
    return false;
  }

  @Override
  public Watermark pollWatermark() {
    if (timeOutput < 0 || offsets == null || maxEventTime.isEmpty()) {
      return null;
    }
    long least = Long.MAX_VALUE;
    for (long t : maxEventTime.values()) {
      least = Math.min(least, t);
    }
    long w = least - options.watermarkDelay().toMillis();
    if (w <= watermark) {
      return null;
    }
    watermark = w;
    return new Watermark(timeOutput, w);
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    started = true;
    if (barrier.mutation() != null && barrier.mutation().hasUpdate()) {
      watermark = Long.MIN_VALUE;
    }
    paused = barrier.pausedAfter(ctx.jobId(), paused);
    if (offsets != null) {
      offsets.forEach((p, o) -> {
        if (!o.equals(stored.get(p))) {
          state.put(new Object[] {p, o});
          stored.put(p, o);
        }
      });
      skippedBySplit.forEach((split, n) -> {
        if (!n.equals(storedSkipped.get(split))) {
          state.put(new Object[] {-1 - split, n});
          storedSkipped.put(split, n);
        }
      });
      updateBacklog();
      long now = ctx.clock().nowMillis();
      if (now >= nextDiscoveryMs) {
        nextDiscoveryMs = now + options.discoveryInterval().toMillis();
        discover();
      }
    }
    state.commit(barrier.prevEpoch());
  }

  /** Adds partitions created since the last listing, from their beginning (their offsets were never stored). */
  private void discover() {
    TreeSet<Integer> owned = ownedPartitions();
    if (!owned.equals(new TreeSet<>(offsets.keySet()))) {
      owned.forEach(p -> offsets.putIfAbsent(p, 0L));
      assign(offsets);
    }
  }

  private void updateBacklog() {
    long lag = 0;
    for (int p : offsets.keySet()) {
      var l = consumer.currentLag(new TopicPartition(options.topic(), p));
      if (l.isEmpty()) {
        return; // not known yet: keep the last value
      }
      lag += l.getAsLong();
    }
    backlog = lag;
  }

  /**
   * Records of this actor's partitions not yet emitted: the consumer's lag (log end minus position)
   * summed over them, as of the last barrier; -1 until known. The source backlog the autoscaler
   * reads (reported with each barrier's load). Thread-safety: any thread.
   */
  @Override
  public long backlog(long nowNanos) {
    return backlog;
  }

  /**
   * Malformed records passed over with {@code on-error=skip} in the actor's splits, those earlier
   * epochs committed included (the count moves with the splits); -1 from a change of splits until
   * the actor has read their state, 0 with no splits. Thread-safety: any thread.
   */
  @Override
  public long skipped() {
    return skipped;
  }

  @Override
  public void close() {
    if (consumer != null) {
      consumer.close();
    }
  }
}
