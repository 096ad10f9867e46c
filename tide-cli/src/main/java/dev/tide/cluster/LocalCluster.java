package dev.tide.cluster;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaGrpcService;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.optimize.OptimizerGrpcService;
import dev.tide.meta.optimize.OptimizingService;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.worker.OptimizerInstance;
import dev.tide.optimizer.worker.OptimizerSettings;
import dev.tide.meta.store.JdbcMetaStore;
import dev.tide.meta.store.MetaStore;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.proto.stream.RegisterWorkerRequest;
import dev.tide.proto.stream.RegisterWorkerResponse;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.node.ComputeNode;
import dev.tide.stream.node.LocalExchange;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.source.NexmarkSourceOptions;
import dev.tide.stream.state.StateTable;
import dev.tide.stream.actor.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Meta and compute nodes in one JVM, talking gRPC over the in-process transport and sharing a
 * local-directory object store: the embedded cluster of the playground and the end-to-end tests.
 */
public final class LocalCluster implements AutoCloseable {
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final String prefix = "tide-" + INSTANCES.incrementAndGet() + "-";
  private final Config config;
  private final ObjectStore objects;
  private final LocalExchange exchange = new LocalExchange(Channel.DEFAULT_CAPACITY);
  /** The meta store's JDBC URL; an in-memory store cannot survive {@link #restartMeta}. */
  private final String metaStoreUrl;
  private MetaStore metaStore;
  private volatile Meta meta;
  private Server metaServer;
  private final ManagedChannel metaChannel;
  private final List<Node> nodes = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final BlockCache readerCache = new BlockCache(64L << 20);
  private final long blockCacheBytes;
  private volatile StateStore reader;
  private volatile OptimizingService optimizing;
  private final List<OptimizerInstance> optimizers = new ArrayList<>();

  /** A compute node with its in-process server. */
  public record Node(ComputeNode compute, Server server, int slots) {}

  /** A cluster whose objects are under {@code dataDir/objects} and whose meta store is {@code dataDir/meta.db}. */
  public LocalCluster(Path dataDir, Config config, int computeNodes, int slotsPerNode) {
    this(new LocalObjectStore(dataDir.resolve("objects")), dataDir.resolve("meta.db"), config, computeNodes, slotsPerNode);
  }

  /**
   * A cluster over the given object store (tests pass one that injects faults) with its meta store in
   * the SQLite file {@code metaDb}.
   */
  public LocalCluster(ObjectStore objects, Path metaDb, Config config, int computeNodes, int slotsPerNode) {
    this(objects, "jdbc:sqlite:" + metaDb.toAbsolutePath(), config, computeNodes, slotsPerNode);
  }

  /**
   * A cluster over the given object store whose meta catalog is in memory only: it does not survive
   * {@link #restartMeta}. Prefer {@link #LocalCluster(ObjectStore, Path, Config, int, int)}.
   */
  public LocalCluster(ObjectStore objects, Config config, int computeNodes, int slotsPerNode) {
    this(objects, "jdbc:sqlite::memory:", config, computeNodes, slotsPerNode);
  }

  private LocalCluster(ObjectStore objects, String metaStoreUrl, Config config, int computeNodes, int slotsPerNode) {
    this.config = config;
    this.objects = objects;
    this.blockCacheBytes = 64L << 20;
    this.metaStoreUrl = metaStoreUrl;
    startMeta();
    this.metaChannel = InProcessChannelBuilder.forName(prefix + "meta").build();
    for (int i = 0; i < computeNodes; i++) {
      addNode(slotsPerNode);
    }
  }

  /** Opens the meta store, starts meta on it and serves it under this cluster's in-process meta name. */
  private void startMeta() {
    metaStore = JdbcMetaStore.open(metaStoreUrl);
    Meta m = new Meta(config, Clock.SYSTEM, address -> InProcessChannelBuilder.forName(address).build(), metaStore);
    OptimizingService o = new OptimizingService(config, Clock.SYSTEM, m.compactionCommitter(), objects,
        group -> GroupConfig.parse(java.util.Map.of(), "in-process"), this::minReaderVersion);
    try {
      metaServer = InProcessServerBuilder.forName(prefix + "meta").addService(new MetaGrpcService(m))
          .addService(new OptimizerGrpcService(o)).build().start();
    } catch (IOException e) {
      m.close();
      metaStore.close();
      throw new UncheckedIOException(e);
    }
    m.start();
    meta = m;
    optimizing = o.start();
  }

  /**
   * Simulates a meta crash and restart: closes meta, its server and its store, then starts a new meta
   * on the same store file under the same in-process name (compute nodes keep their channels to it).
   * The new meta recovers: it resets every worker to the committed version and rebuilds the stored
   * layouts. Returns once the new meta is serving.
   */
  public synchronized void restartMeta() {
    if (metaStoreUrl.contains(":memory:")) {
      throw new IllegalStateException("restart of meta refused: its store is in memory; create the cluster with a meta store file");
    }
    optimizing.close();
    meta.close();
    metaServer.shutdownNow();
    try {
      metaServer.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping meta", e);
    }
    metaStore.close();
    startMeta();
  }

  /** Starts one more compute node and registers it with meta. */
  public synchronized Node addNode(int slots) {
    String name = prefix + "compute-" + (nodes.size() + 1);
    MetaServiceGrpc.MetaServiceBlockingStub stub = MetaServiceGrpc.newBlockingStub(metaChannel);
    ComputeNode compute = new ComputeNode(name, stub, objects, new BlockCache(blockCacheBytes), exchange, Clock.SYSTEM);
    Server server;
    try {
      server = InProcessServerBuilder.forName(name).addService(compute).build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    RegisterWorkerResponse r = stub.registerWorker(RegisterWorkerRequest.newBuilder().setHost(name).setSlots(slots).build());
    compute.setWorkerId(r.getWorkerId());
    compute.store().commit(r.getVersion());
    Node n = new Node(compute, server, slots);
    nodes.add(n);
    return n;
  }

  public Meta meta() {
    return meta;
  }

  /** Meta's optimizing service (compaction workload). */
  public OptimizingService optimizing() {
    return optimizing;
  }

  public ObjectStore objects() {
    return objects;
  }

  /**
   * Starts {@code instances} in-process optimizers of {@code threads} threads in {@code group}; they
   * compact the cluster's state tables and stop with the cluster.
   */
  public synchronized List<OptimizerInstance> startOptimizers(String group, int instances, int threads) {
    List<OptimizerInstance> started = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      started.add(OptimizerInstance.start(metaChannel, objects,
          OptimizerSettings.of(group, threads).withIdlePoll(java.time.Duration.ofMillis(100))));
    }
    optimizers.addAll(started);
    return started;
  }

  /**
   * The lowest state-store version a reader in this JVM may still use: every running node's installed
   * version or the oldest one its open scans pin, and the oldest one the view reader's open scans pin.
   */
  private long minReaderVersion() {
    long min = meta.committedVersion().getId();
    for (Node n : nodes) {
      if (!n.server().isShutdown()) {
        min = Math.min(min, n.compute().store().minPinnedVersionId());
      }
    }
    StateStore r = reader; // installs the latest version before each read: only its open scans matter
    java.util.Map<Long, Integer> pinned = r == null ? java.util.Map.of() : r.pinnedVersions();
    return pinned.isEmpty() ? min : Math.min(min, pinned.keySet().iterator().next());
  }

  public synchronized List<Node> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * Gracefully removes a node: meta migrates its actors off, then deregisters it; the node is
   * stopped once it hosts nothing. Returns immediately; see {@link #drained}.
   */
  public void drain(int index) {
    meta.drainWorker(nodes.get(index).compute().workerId());
  }

  /** True once a draining node was deregistered by meta; stops it then. */
  public boolean drained(int index) {
    Node n = nodes.get(index);
    boolean gone = meta.workers().stream().noneMatch(w -> w.id() == n.compute().workerId());
    if (gone && !n.server().isShutdown()) {
      n.server().shutdownNow();
      n.compute().shutdown();
    }
    return gone;
  }

  /** Simulates a machine failure: the node's actors stop and its server goes away. */
  public void crash(int index) {
    Node n = nodes.get(index);
    n.server().shutdownNow();
    n.compute().shutdown();
  }

  /** Compiles and starts a job; returns its definition. */
  public JobDefinition submit(Plan plan) {
    Meta.JobIds ids = meta.allocateJobIds();
    JobDefinition def = JobCompiler.compile(plan, ids.jobId(), config.get(MetaOptions.VNODE_COUNT), ids.tableIdBase());
    meta.createJob(def);
    return def;
  }

  /** A read-only view of the committed state, kept across calls so open SST readers are reused. */
  private synchronized StateStore reader() {
    if (reader == null) {
      reader = new StateStore(objects, readerCache, "state", () -> {
        throw new IllegalStateException("a reader never writes");
      });
    }
    reader.commit(meta.committedVersion());
    return reader;
  }

  /** The committed rows of a materialized view (visible columns), in key order. */
  public List<Object[]> scan(String view) {
    TableCatalog t = meta.view(view).orElseThrow(() -> new IllegalArgumentException("unknown materialized view '" + view + "'"));
    List<Object[]> out = new ArrayList<>();
    for (Object[] row : StateTable.scanAll(reader(), t)) {
      out.add(Arrays.copyOf(row, t.getVisibleColumns()));
    }
    return out;
  }

  /** Committed progress of one source of a job. */
  public record SourceProgress(String table, long emitted, long total) {
    public boolean done() {
      return total >= 0 && emitted >= total;
    }
  }

  /**
   * Committed progress of every source of the job, from the split offsets in the committed state:
   * a split's offset is its next ordinal, so it has emitted {@code ceil((offset - split) / splits)} rows.
   */
  public List<SourceProgress> sourceProgress(JobDefinition job) {
    StateStore reader = reader();
    List<SourceProgress> out = new ArrayList<>();
    for (Fragment f : job.getFragmentsList()) {
      for (PlanNode n : f.getNodesList()) {
        if (!n.hasSource()) {
          continue;
        }
        long events = NexmarkSourceOptions.parse(n.getSource().getOptionsMap()).get(NexmarkSourceOptions.EVENTS);
        NexmarkTable table = NexmarkTable.valueOf(n.getSource().getTable().toUpperCase(Locale.ROOT));
        long total = events < 0 ? -1 : NexmarkGenerator.ordinalsBelow(table, events);
        int splits = n.getSource().getSplitCount();
        TableCatalog t = job.getTablesList().stream().filter(c -> c.getTableId() == n.getSource().getStateTableId()).findFirst().orElseThrow();
        long emitted = 0;
        for (Object[] row : StateTable.scanAll(reader, t)) {
          long split = (Integer) row[0];
          long offset = total < 0 ? (Long) row[1] : Math.min((Long) row[1], roundUp(total, split, splits));
          emitted += (offset - split + splits - 1) / splits;
        }
        out.add(new SourceProgress(n.getSource().getTable(), emitted, total));
      }
    }
    return out;
  }

  /** The first ordinal of the split at or past {@code total}: where a finished split's offset stops. */
  private static long roundUp(long total, long split, int splits) {
    long k = Math.max(0, (total - split + splits - 1) / splits);
    return split + k * splits;
  }

  /** True once every bounded source of the job has committed offsets past its last event. */
  public boolean sourcesDone(JobDefinition job) {
    List<SourceProgress> p = sourceProgress(job);
    return !p.isEmpty() && p.stream().allMatch(SourceProgress::done);
  }

  @Override
  public void close() {
    optimizers.forEach(OptimizerInstance::close);
    optimizing.close();
    meta.close();
    metaStore.close();
    for (Node n : nodes) {
      n.server().shutdownNow();
      n.compute().shutdown();
    }
    metaChannel.shutdownNow();
    metaServer.shutdownNow();
  }
}
