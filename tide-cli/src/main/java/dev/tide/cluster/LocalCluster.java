package dev.tide.cluster;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.hash.RowFingerprint;
import dev.tide.common.time.Clock;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaGrpcService;
import dev.tide.meta.pool.PoolGrpcService;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.optimize.OptimizerGrpcService;
import dev.tide.meta.optimize.OptimizingService;
import dev.tide.meta.group.GroupGrpcService;
import dev.tide.meta.group.TableGrpcService;
import dev.tide.optimizer.keeper.GroupKeepers;
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
import dev.tide.storage.StateStore;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.exchange.ExchangeClient;
import dev.tide.stream.exchange.ExchangeConfig;
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
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Meta and compute nodes in one JVM, talking gRPC over the in-process transport and sharing a
 * local-directory object store: the embedded cluster of the playground and the end-to-end tests.
 * With {@link #REMOTE_EXCHANGE} the nodes are linked as separate processes are: each serves its
 * stream and exchange services on a loopback port and actors on different nodes exchange over gRPC.
 */
public final class LocalCluster implements AutoCloseable {
  public static final ConfigOption<Boolean> REMOTE_EXCHANGE = ConfigOption.boolOption("playground.remote-exchange", false,
      "Embedded cluster only: each compute node keeps its own channels and serves its stream and exchange services on a"
          + " 127.0.0.1 port, so actors on different nodes exchange chunks and barriers over gRPC as separate processes do."
          + " Off: the nodes share in-memory channels (faster).");

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final String prefix = "tide-" + INSTANCES.incrementAndGet() + "-";
  private final Config config;
  private final ObjectStore objects;
  private final LocalExchange exchange = new LocalExchange(Channel.DEFAULT_CAPACITY);
  private final boolean remoteExchange;
  /** The meta store's JDBC URL; an in-memory store cannot survive {@link #restartMeta}. */
  private final String metaStoreUrl;
  private MetaStore metaStore;
  private volatile Meta meta;
  private Server metaServer;
  private final ManagedChannel metaChannel;
  private final List<Node> nodes = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final long blockCacheBytes;
  private final CommittedViews views;
  private volatile OptimizerGroups optimizerGroups;
  private volatile Optional<ComputePoolRuntime> pool = Optional.empty();
  private final List<OptimizerInstance> optimizers = new ArrayList<>();
  /** Every optimizer the in-process provider launched, running or stopped. */
  private final List<OptimizerInstance> launched = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** A compute node with its in-process server and its membership (heartbeats). */
  public record Node(ComputeNode compute, Server server, ComputeMembership membership, int slots) {
    void stop() {
      membership.close();
      server.shutdownNow();
      compute.shutdown();
    }
  }

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
    this.remoteExchange = config.get(REMOTE_EXCHANGE);
    this.objects = objects;
    this.blockCacheBytes = 64L << 20;
    this.metaStoreUrl = metaStoreUrl;
    this.views = new CommittedViews(() -> meta, objects);
    this.metaChannel = InProcessChannelBuilder.forName(prefix + "meta").build();
    startMeta();
    for (int i = 0; i < computeNodes; i++) {
      addNode(slotsPerNode);
    }
  }

  /** Opens the meta store, starts meta on it and serves it under this cluster's in-process meta name. */
  private void startMeta() {
    metaStore = JdbcMetaStore.open(metaStoreUrl);
    Meta m = new Meta(config, Clock.SYSTEM, address -> remoteExchange ? NettyChannelBuilder.forTarget(address).usePlaintext().build()
        : InProcessChannelBuilder.forName(address).build(), metaStore);
    // In-process optimizers reach meta over the in-process transport (no loopback address: no local provider).
    OptimizerGroups groups = OptimizerGroups.create(config, Clock.SYSTEM, m.compactionCommitter(), objects, metaStore,
        this::minReaderVersion, spec -> {
          OptimizerInstance o = OptimizerInstance.start(metaChannel, objects,
              OptimizerSettings.of(spec.group(), spec.threads()).withResourceId(spec.resourceId()).withIdlePoll(Duration.ofMillis(100)));
          launched.add(o);
          return o;
        }, Optional.empty());
    try {
      metaServer = InProcessServerBuilder.forName(prefix + "meta").addService(new MetaGrpcService(m))
          .addService(new PoolGrpcService(() -> pool.map(ComputePoolRuntime::pool), m::workerHealth))
          .addService(new OptimizerGrpcService(groups.optimizing())).addService(new GroupGrpcService(groups.keepers()))
          .addService(new TableGrpcService(groups.optimizing(), groups.keepers())).build().start();
    } catch (IOException e) {
      groups.close();
      m.close();
      metaStore.close();
      throw new UncheckedIOException(e);
    }
    m.start();
    meta = m;
    optimizerGroups = groups.start();
    // Nodes the pool launches run in this JVM; releasing one stops it (it left already when drained).
    pool = ComputePoolRuntime.inProcess(config, m, metaStore, Clock.SYSTEM, spec -> {
      Node n = addNode(spec.threads(), spec.resourceId());
      return n::stop;
    });
  }

  /** The compute pool, when {@code compute-pool.provider=in-process}. */
  public Optional<dev.tide.meta.pool.ComputePool> computePool() {
    return pool.map(ComputePoolRuntime::pool);
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
    pool.ifPresent(ComputePoolRuntime::close);
    optimizerGroups.close();
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
  public Node addNode(int slots) {
    return addNode(slots, "");
  }

  /** Starts one more compute node, launched by the compute pool for {@code resourceId} ({@code ""}: by hand). */
  private synchronized Node addNode(int slots, String resourceId) {
    String name = prefix + "compute-" + (nodes.size() + 1);
    MetaServiceGrpc.MetaServiceBlockingStub stub = MetaServiceGrpc.newBlockingStub(metaChannel);
    ComputeNode compute;
    Server server;
    String address = name;
    try {
      if (remoteExchange) {
        ExchangeConfig xc = ExchangeConfig.of(config);
        compute = new ComputeNode(name, stub, objects, new BlockCache(blockCacheBytes), ExchangeClient.plaintext(xc), xc, Clock.SYSTEM);
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(compute)
            .addService(compute.exchangeService()).maxInboundMessageSize(xc.maxMessageBytes()).build().start();
        address = "127.0.0.1:" + server.getPort();
      } else {
        compute = new ComputeNode(name, stub, objects, new BlockCache(blockCacheBytes), exchange, Clock.SYSTEM);
        server = InProcessServerBuilder.forName(name).addService(compute).build().start();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ComputeNode joined = compute;
    Server serving = server;
    ComputeMembership membership = ComputeMembership.join(compute, stub, address, slots, resourceId, config.get(MetaOptions.HEARTBEAT_INTERVAL),
        Duration.ofSeconds(30), () -> {
          serving.shutdownNow(); // told to leave after a drain: the node stops, as a process would exit
          joined.shutdown();
        });
    Node n = new Node(compute, server, membership, slots);
    nodes.add(n);
    return n;
  }

  public Meta meta() {
    return meta;
  }

  /** Meta's optimizing service (compaction workload). */
  public OptimizingService optimizing() {
    return optimizerGroups.optimizing();
  }

  /** Meta's optimizer groups and their scale keepers. */
  public GroupKeepers groups() {
    return optimizerGroups.keepers();
  }

  public ObjectStore objects() {
    return objects;
  }

  /** Every optimizer the groups' in-process provider launched (running or stopped), oldest first. */
  public List<OptimizerInstance> launchedOptimizers() {
    return List.copyOf(launched);
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
    return Math.min(min, views.oldestPinnedVersion());
  }

  public synchronized List<Node> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * Gracefully removes a node: meta migrates its actors off, then tells it to leave, and the node
   * stops. Returns immediately; see {@link #drained}.
   */
  public void drain(int index) {
    meta.drainWorker(nodes.get(index).compute().workerId());
  }

  /** True once a draining node was told by meta to leave (it has stopped then). */
  public boolean drained(int index) {
    return nodes.get(index).membership().left();
  }

  /** Simulates a machine failure: the node's actors stop and its server goes away. */
  public void crash(int index) {
    nodes.get(index).stop();
  }

  /** Compiles and starts a job; returns its definition. */
  public JobDefinition submit(Plan plan) {
    return JobGrpcService.submit(meta, config, plan);
  }

  /** Reads of the committed state: views, digests and source progress. */
  public CommittedViews views() {
    return views;
  }

  /** The committed rows of a materialized view (visible columns), in key order. */
  public List<Object[]> scan(String view) {
    return views.scan(view);
  }

  /** The committed digest of a digest sink (see {@link CommittedViews#digest}). */
  public RowFingerprint digest(String name) {
    return views.digest(name);
  }

  /** Committed progress of every source of the job. */
  public List<CommittedViews.SourceProgress> sourceProgress(JobDefinition job) {
    return views.sourceProgress(job);
  }

  /** True once every bounded source of the job has committed offsets past its last event. */
  public boolean sourcesDone(JobDefinition job) {
    return views.sourcesDone(job);
  }

  @Override
  public void close() {
    pool.ifPresent(p -> p.pool().close()); // no more pool decisions; its nodes stop with the others, after meta
    optimizers.forEach(OptimizerInstance::close);
    optimizerGroups.close();
    meta.close();
    pool.ifPresent(ComputePoolRuntime::close);
    metaStore.close();
    nodes.forEach(Node::stop);
    metaChannel.shutdownNow();
    metaServer.shutdownNow();
  }
}
