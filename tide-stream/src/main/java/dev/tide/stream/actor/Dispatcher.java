package dev.tide.stream.actor;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.hash.VnodeHasher;
import java.util.Arrays;

/**
 * Sends an actor's output towards one downstream fragment. Chunks go out with a visibility mask
 * (columns are shared, not copied); barriers and watermarks go to every output. An output is a local channel or a
 * remote link ({@link Outbox}); the dispatcher does not tell them apart.
 */
public abstract class Dispatcher {
  protected final Outbox[] outputs;
  private final int downstreamFragment;
  private final long[] outputActorIds;

  protected Dispatcher(Outbox[] outputs) {
    this(outputs, -1, new long[0]);
  }

  protected Dispatcher(Outbox[] outputs, int downstreamFragment, long[] outputActorIds) {
    this.outputs = outputs;
    this.downstreamFragment = downstreamFragment;
    this.outputActorIds = outputActorIds;
  }

  /** The downstream fragment this dispatcher feeds (-1 when built without wiring information). */
  public int downstreamFragment() {
    return downstreamFragment;
  }

  /** Ids of the downstream actors, in output order. */
  public long[] outputActorIds() {
    return outputActorIds.clone();
  }

  /** The output to downstream actor {@code outputActorIds()[i]}. */
  Outbox output(int i) {
    return outputs[i];
  }

  public abstract void dispatch(StreamChunk chunk) throws InterruptedException;

  /** A watermark goes to every output, like a barrier: each downstream actor aligns its inputs'. */
  public void watermark(Watermark w) throws InterruptedException {
    for (Outbox o : outputs) {
      o.send(w);
    }
  }

  public void barrier(Barrier b) throws InterruptedException {
    for (Outbox o : outputs) {
      o.send(b);
    }
  }

  /** To the single downstream actor (SIMPLE to a singleton, NO_SHUFFLE to the paired actor). */
  public static final class Single extends Dispatcher {
    public Single(Outbox out) {
      super(new Outbox[] {out});
    }

    public Single(Outbox out, int downstreamFragment, long outputActorId) {
      super(new Outbox[] {out}, downstreamFragment, new long[] {outputActorId});
    }

    @Override
    public void dispatch(StreamChunk chunk) throws InterruptedException {
      outputs[0].send(chunk);
    }
  }

  /** To every downstream actor. */
  public static final class Broadcast extends Dispatcher {
    public Broadcast(Outbox[] outputs, int downstreamFragment, long[] outputActorIds) {
      super(outputs, downstreamFragment, outputActorIds);
    }

    @Override
    public void dispatch(StreamChunk chunk) throws InterruptedException {
      for (Outbox o : outputs) {
        o.send(chunk);
      }
    }
  }

  /**
   * By vnode of the distribution key: {@code vnodeOwner[vnode]} is the output index. An update pair
   * whose halves go to different outputs is split into a delete and an insert.
   */
  public static final class Hash extends Dispatcher {
    private final int[] distKey;
    private final int[] vnodeOwner;
    private final VnodeHasher hasher = new VnodeHasher();
    private int[] vnodes = new int[0];
    private int[] target = new int[0];

    public Hash(Outbox[] outputs, int[] distKey, int[] vnodeOwner) {
      this(outputs, distKey, vnodeOwner, -1, new long[0]);
    }

    public Hash(Outbox[] outputs, int[] distKey, int[] vnodeOwner, int downstreamFragment, long[] outputActorIds) {
      super(outputs, downstreamFragment, outputActorIds);
      this.distKey = distKey;
      this.vnodeOwner = vnodeOwner;
    }

    @Override
    public void dispatch(StreamChunk chunk) throws InterruptedException {
      int n = chunk.size();
      vnodes = hasher.vnodes(chunk, distKey, vnodeOwner.length, vnodes);
      if (target.length < n) {
        target = new int[n];
      }
      for (int i = 0; i < n; i++) {
        target[i] = chunk.visible(i) ? vnodeOwner[vnodes[i]] : -1;
      }
      if (outputs.length == 1) {
        outputs[0].send(chunk);
        return;
      }
      byte[] ops = chunk.ops();
      for (int o = 0; o < outputs.length; o++) {
        boolean[] vis = new boolean[n];
        byte[] newOps = null;
        int count = 0;
        for (int i = 0; i < n; i++) {
          if (target[i] != o) {
            continue;
          }
          vis[i] = true;
          count++;
          byte op = ops[i];
          boolean splitPair = (op == Op.UPDATE_DELETE.code() && (i + 1 >= n || target[i + 1] != o))
              || (op == Op.UPDATE_INSERT.code() && (i == 0 || target[i - 1] != o));
          if (splitPair) {
            if (newOps == null) {
              newOps = Arrays.copyOf(ops, n);
            }
            newOps[i] = Op.normalize(op);
          }
        }
        if (count > 0) {
          StreamChunk out = chunk.withVisibility(vis);
          outputs[o].send(newOps == null ? out : out.withOps(newOps));
        }
      }
    }
  }
}
