package dev.tide.stream.operator;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.storage.StateStore;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.Operator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes the changelog to {@code <dir>/part-<actor>.log}, exactly once: each epoch's rows are staged
 * in {@code <dir>/pending-<actor>-<epoch>} at its barrier and appended to the part file only once
 * that epoch is committed; staged epochs that never committed are deleted on recovery.
 * Line format: {@code op<TAB>value<TAB>value...}.
 */
public final class SinkOp implements Operator {
  private final Path dir;
  private final String partName;
  private final long actorId;
  private final StateStore store;
  private final StringBuilder buffer = new StringBuilder();

  public SinkOp(String dir, long actorId, StateStore store) {
    this.dir = Path.of(dir);
    this.actorId = actorId;
    this.partName = "part-" + actorId + ".log";
    this.store = store;
  }

  @Override
  public void open() {
    try {
      Files.createDirectories(dir);
      publishCommitted(true);
    } catch (IOException e) {
      throw new UncheckedIOException("sink " + dir + ": cannot open", e);
    }
  }

  @Override
  public void process(int side, StreamChunk chunk, Emitter out) throws InterruptedException {
    for (int i = 0; i < chunk.size(); i++) {
      if (chunk.visible(i)) {
        buffer.append(Op.of(chunk.op(i)));
        for (Object v : chunk.row(i)) {
          buffer.append('\t').append(v);
        }
        buffer.append('\n');
      }
    }
    out.emit(chunk);
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    try {
      if (buffer.length() > 0) {
        Files.writeString(dir.resolve("pending-" + actorId + "-" + barrier.prevEpoch()), buffer, StandardCharsets.UTF_8);
        buffer.setLength(0);
      }
      publishCommitted(false);
    } catch (IOException e) {
      throw new UncheckedIOException("sink " + dir + ": cannot write", e);
    }
  }

  /** Appends this actor's committed staged epochs in order; on recovery drops those that never committed. */
  private void publishCommitted(boolean recovering) throws IOException {
    long committed = store.committedEpoch();
    String prefix = "pending-" + actorId + "-";
    List<Long> epochs = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix))
          .forEach(n -> epochs.add(Long.parseLong(n.substring(prefix.length()))));
    }
    epochs.sort(null);
    for (long e : epochs) {
      Path p = dir.resolve(prefix + e);
      if (e <= committed) {
        Files.write(dir.resolve(partName), Files.readAllBytes(p), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Files.delete(p);
      } else if (recovering) {
        Files.delete(p);
      }
    }
  }
}
