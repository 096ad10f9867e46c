package dev.tide.bench.jmh;

import dev.tide.proto.store.SstInfo;
import dev.tide.storage.merge.Lookup;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.storage.sst.SstReader;
import dev.tide.storage.sst.SstWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * SST write and read: {@link SstWriter} building an SST of {@value #ENTRIES} state entries
 * ({@code table | vnode | 8-byte key}, 64-byte values) in key order, and {@link SstReader#get} of
 * random present keys from such an SST on a local directory, its blocks in the block cache. Score: ns per entry.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SstBenchmark {
  static final int ENTRIES = 65_536;
  static final int LOOKUPS = 4096;

  private byte[][] keys;
  private byte[] value;
  private SstReader reader;
  private int[] probes;

  @Setup
  public void setup() throws IOException {
    keys = new byte[ENTRIES][];
    for (int i = 0; i < ENTRIES; i++) {
      keys[i] = ByteBuffer.allocate(14).putInt(1001).putShort((short) (i % 256)).putLong(i).array();
    }
    java.util.Arrays.sort(keys, java.util.Arrays::compareUnsigned);
    value = new byte[64];
    new SplittableRandom(1).nextBytes(value);
    Path dir = Files.createTempDirectory("tide-jmh-sst-");
    dir.toFile().deleteOnExit();
    LocalObjectStore objects = new LocalObjectStore(dir);
    SstWriter.Built built = write(1);
    objects.put(built.info().getObjectPath(), built.bytes());
    reader = SstReader.open(objects, built.info(), new BlockCache(64 << 20));
    SplittableRandom r = new SplittableRandom(2);
    probes = new int[LOOKUPS];
    for (int i = 0; i < LOOKUPS; i++) {
      probes[i] = r.nextInt(ENTRIES);
    }
  }

  private SstWriter.Built write(long id) {
    SstWriter w = new SstWriter();
    for (byte[] k : keys) {
      w.add(k, 5, false, value);
    }
    return w.finish(id, "sst/" + id + ".sst");
  }

  @Benchmark
  @OperationsPerInvocation(ENTRIES)
  public SstInfo write() {
    return write(2).info();
  }

  @Benchmark
  @OperationsPerInvocation(LOOKUPS)
  public long pointRead() {
    long found = 0;
    for (int p : probes) {
      Lookup l = reader.get(keys[p]);
      found += l == null ? 0 : l.epoch();
    }
    return found;
  }
}
