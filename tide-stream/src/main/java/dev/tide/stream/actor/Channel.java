package dev.tide.stream.actor;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded single-consumer channel of messages (chunks and barriers) between two actors. A full
 * channel blocks the sender: that is backpressure. The consumer parks when all its channels are
 * empty; senders unpark it.
 */
public final class Channel implements Outbox {
  /** Default capacity in messages; each chunk holds up to 1024 rows. */
  public static final int DEFAULT_CAPACITY = 16;

  private final ArrayBlockingQueue<Object> queue;
  private volatile Thread consumer;

  public Channel(int capacity) {
    this.queue = new ArrayBlockingQueue<>(capacity);
  }

  @Override
  public void send(Object message) throws InterruptedException {
    if (!queue.offer(message)) {
      long t0 = System.nanoTime();
      queue.put(message);
      LoadMeter.outputBlocked(System.nanoTime() - t0);
    }
    Thread t = consumer;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** The next message, or null if none is queued. */
  public Object poll() {
    return queue.poll();
  }

  public int size() {
    return queue.size();
  }

  public int capacity() {
    return queue.size() + queue.remainingCapacity();
  }

  /** Registers the thread that is woken when a message arrives. */
  public void bindConsumer(Thread t) {
    this.consumer = t;
  }
}
