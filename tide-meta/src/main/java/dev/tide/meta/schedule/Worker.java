package dev.tide.meta.schedule;

/** A compute node as the scheduler sees it. */
public record Worker(int id, String address, int slots) {
  public Worker {
    if (slots < 1) {
      throw new IllegalArgumentException("worker " + id + " offers " + slots + " slots; a worker needs at least 1");
    }
  }
}
