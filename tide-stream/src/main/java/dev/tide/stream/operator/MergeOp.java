package dev.tide.stream.operator;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Watermark;

/** The leaf that receives chunks from upstream actors: passes them (and its inputs' least watermark) on unchanged. */
public final class MergeOp implements Operator {
  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    out.emit(chunk);
  }

  @Override
  public void onWatermark(int side, Watermark watermark, Emitter out) throws InterruptedException {
    out.watermark(watermark);
  }
}
