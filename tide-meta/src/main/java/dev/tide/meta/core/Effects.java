package dev.tide.meta.core;

import dev.tide.proto.stream.BuildActorsRequest;
import java.util.ArrayList;
import java.util.List;

/** The effects of the current step, in order, and the call tokens handed out. Confined to the core. */
final class Effects {
  private final List<Effect> effects = new ArrayList<>();
  private long nextToken = 1;

  void persist(Effect.Write w) {
    effects.add(new Effect.Persist(w));
  }

  /** Adds a call and returns the token its {@link Event.CallDone} will carry. */
  long call(int workerId, Effect.Rpc rpc) {
    long token = nextToken++;
    effects.add(new Effect.Call(token, workerId, rpc));
    return token;
  }

  long build(int workerId, BuildActorsRequest req) {
    return call(workerId, new Effect.Rpc.Build(req));
  }

  void reply(long requestId, Object value) {
    effects.add(new Effect.Reply(requestId, value, null));
  }

  void fail(long requestId, RuntimeException error) {
    effects.add(new Effect.Reply(requestId, null, error));
  }

  void add(Effect e) {
    effects.add(e);
  }

  /** The effects so far, and starts a new step. */
  List<Effect> drain() {
    List<Effect> out = List.copyOf(effects);
    effects.clear();
    return out;
  }
}
