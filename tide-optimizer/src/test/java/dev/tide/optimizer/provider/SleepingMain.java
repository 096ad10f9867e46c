package dev.tide.optimizer.provider;

/** A stand-in optimizer process: prints its arguments and its token variable, and waits to be stopped. */
public final class SleepingMain {
  private SleepingMain() {}

  public static void main(String[] args) throws InterruptedException {
    System.out.println("started " + String.join(" ", args));
    System.out.println("TIDE_TOKEN=" + System.getenv("TIDE_TOKEN"));
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
