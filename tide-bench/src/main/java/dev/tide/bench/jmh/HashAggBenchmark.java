package dev.tide.bench.jmh;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.ManualClock;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.HashAggOp;
import dev.tide.stream.operator.LocalAggOp;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The hash aggregation of Nexmark-style {@code SELECT auction, count(*), sum(price) FROM bid GROUP BY
 * auction} in the two phases the compiler plans: each of 16 chunks of bids through the local phase
 * ({@link LocalAggOp}, one partial row per auction and chunk) into {@link HashAggOp#process}, then a
 * barrier that writes the changed groups to the state table and emits the changes. One actor owns every vnode; its state store is on a local
 * directory and is fresh every iteration. Score: ns per input row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HashAggBenchmark {
  static final int CHUNKS = 16;

  private List<StreamChunk> chunks;
  private JobDefinition job;
  private PlanNode agg;
  private PlanNode local;
  private Fragment fragment;
  private HashAggOp op;
  private LocalAggOp localOp;
  private long epoch;
  private long emitted;

  @Setup
  public void setup() {
    chunks = BidChunks.of(CHUNKS);
    PlanBuilder b = new PlanBuilder("agg");
    b.source("nexmark", "bid", Map.of()).groupBy("auction").agg(Agg.count("bids"), Agg.sum("price", "volume")).materialize("agg");
    job = JobCompiler.compile(b.build(), 7, VnodeHasher256.COUNT, 1000);
    for (Fragment f : job.getFragmentsList()) {
      for (PlanNode n : f.getNodesList()) {
        if (n.hasHashAgg()) {
          agg = n;
          fragment = f;
        } else if (n.hasLocalAgg()) {
          local = n;
        }
      }
    }
  }

  @Setup(Level.Iteration)
  public void freshOperator() throws IOException {
    Path dir = Files.createTempDirectory("tide-jmh-agg-");
    dir.toFile().deleteOnExit();
    AtomicLong ids = new AtomicLong();
    StateStore store = new StateStore(new LocalObjectStore(dir), new BlockCache(16 << 20), "state", ids::incrementAndGet);
    Map<Integer, TableCatalog> tables = new TreeMap<>();
    job.getTablesList().forEach(t -> tables.put(t.getTableId(), t));
    ActorContext ctx = new ActorContext(1, job.getJobId(), job.getVnodeCount(), VnodeBitmap.full(job.getVnodeCount()), List.of(),
        tables, store, new ManualClock(0));
    localOp = new LocalAggOp(local.getLocalAgg(), NexmarkTable.BID.schema().types());
    localOp.open();
    op = new HashAggOp(agg.getHashAgg(), Types.types(local.getSchemaList()), ctx);
    op.open();
    epoch = 1;
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS * StreamChunk.DEFAULT_CAPACITY)
  public long updateAndBarrier() throws InterruptedException {
    for (StreamChunk c : chunks) {
      localOp.process(0, c, partial -> op.process(0, partial, chunk -> emitted += chunk.size()));
    }
    op.onBarrier(new Barrier(epoch + 1, epoch, null, 0), chunk -> emitted += chunk.size());
    epoch++;
    return emitted;
  }

  /** The default vnode count of a job. */
  static final class VnodeHasher256 {
    static final int COUNT = dev.tide.common.hash.VnodeHasher.DEFAULT_VNODE_COUNT;
  }
}
