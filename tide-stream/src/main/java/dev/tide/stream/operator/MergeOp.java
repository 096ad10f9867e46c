package dev.tide.stream.operator;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.actor.Operator;

/** The leaf that receives chunks from upstream actors: passes them on unchanged. */
public final class MergeOp implements Operator {
  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    out.emit(chunk);
  }
}
