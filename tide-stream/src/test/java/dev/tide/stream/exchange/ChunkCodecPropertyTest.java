package dev.tide.stream.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.proto.exchange.ExchangeRequest;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.Pause;
import dev.tide.proto.stream.Stop;
import dev.tide.proto.stream.Update;
import dev.tide.stream.actor.Barrier;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link ChunkCodec} against the chunk's own boxed view: decoding an encoded chunk gives exactly its
 * visible rows, ops and column types, for every column type with nulls, edge values and masks; every
 * truncation or corruption of an encoding is refused or decodes to a well-formed chunk, never worse.
 */
class ChunkCodecPropertyTest {

  @Property(tries = 400)
  void chunkRoundTripsToItsVisibleRows(@ForAll long seed) throws Exception {
    StreamChunk chunk = new RandomChunks(seed).chunk();
    StreamChunk back = ChunkCodec.decode(ChunkCodec.encode(chunk));
    assertSameVisibleRows(back, chunk, seed);

    // Through the request message too, as the link sends it.
    ExchangeRequest req = ExchangeRequest.parseFrom(ChunkCodec.toRequest(chunk).toByteArray());
    assertSameVisibleRows((StreamChunk) ChunkCodec.fromRequest(req), chunk, seed);
  }

  @Property(tries = 200)
  void truncatedEncodingsAreRefused(@ForAll long seed) {
    RandomChunks gen = new RandomChunks(seed);
    byte[] bytes = ChunkCodec.encode(gen.chunk());
    int cut = gen.random().nextInt(bytes.length);
    assertThatThrownBy(() -> ChunkCodec.decode(Arrays.copyOf(bytes, cut)))
        .as("seed %d, %d of %d bytes", seed, cut, bytes.length)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("malformed chunk encoding");
  }

  @Property(tries = 200)
  void corruptedEncodingsAreRefusedOrWellFormed(@ForAll long seed) {
    RandomChunks gen = new RandomChunks(seed);
    byte[] bytes = ChunkCodec.encode(gen.chunk());
    Random rnd = gen.random();
    bytes[rnd.nextInt(bytes.length)] ^= (byte) (1 + rnd.nextInt(255));
    try {
      StreamChunk c = ChunkCodec.decode(bytes);
      for (int i = 0; i < c.size(); i++) {
        c.row(i); // every value readable
      }
    } catch (IllegalArgumentException e) {
      assertThat(e).hasMessageStartingWith("malformed chunk encoding");
    }
  }

  @Property(tries = 50)
  void barriersRoundTrip(@ForAll long curr, @ForAll long prev, @ForAll long injectMs, @ForAll int kind) {
    Mutation m = switch (Math.floorMod(kind, 4)) {
      case 0 -> null;
      case 1 -> Mutation.newBuilder().setPause(Pause.newBuilder().addJobIds(3)).build();
      case 2 -> Mutation.newBuilder().setStop(Stop.newBuilder().addActorIds(9).addActorIds(10)).build();
      default -> Mutation.newBuilder().setUpdate(Update.newBuilder().setJobId(1)
          .addActors(ActorInfo.newBuilder().setActorId(7).setVnodes("0-127").addSplits(2))
          .addDroppedActorIds(8)).build();
    };
    Barrier b = new Barrier(curr, prev, m, injectMs);
    ExchangeRequest req = ChunkCodec.toRequest(b);
    Barrier back = (Barrier) ChunkCodec.fromRequest(req);
    assertThat(back.currEpoch()).isEqualTo(curr);
    assertThat(back.prevEpoch()).isEqualTo(prev);
    assertThat(back.injectTimeMs()).isEqualTo(injectMs);
    assertThat(back.mutation()).isEqualTo(m);
    assertThat(back.stops(8)).isEqualTo(b.stops(8));
    assertThat(back.stops(9)).isEqualTo(b.stops(9));
    assertThat(back.updateFor(7)).isEqualTo(b.updateFor(7));
  }

  @Property(tries = 1)
  void refusesOtherMessages(@ForAll long seed) {
    assertThatThrownBy(() -> ChunkCodec.toRequest("a string"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected a StreamChunk, a Barrier or a Watermark");
  }

  static void assertSameVisibleRows(StreamChunk actual, StreamChunk expected, long seed) {
    assertThat(actual.visibility()).isNull();
    assertThat(actual.types()).as("seed %d", seed).containsExactly(expected.types());
    assertThat(actual.size()).as("seed %d", seed).isEqualTo(expected.cardinality());
    List<Object[]> rows = expected.visibleRows();
    int k = 0;
    for (int i = 0; i < expected.size(); i++) {
      if (!expected.visible(i)) {
        continue;
      }
      assertThat(actual.op(k)).as("seed %d, op of row %d", seed, k).isEqualTo(expected.op(i));
      assertThat(actual.row(k)).as("seed %d, row %d", seed, k).isEqualTo(rows.get(k));
      k++;
    }
  }
}
