package io.github.keyroute;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

/**
 * A native handle shared by threads, released exactly once and never while a call is using it:
 * every call runs between {@link #enter()} and {@link #leave()}, {@link #close()} marks the
 * handle closed, and whichever of them sees it closed with no call inside frees it. A call
 * after close throws {@link IllegalStateException}; a close during calls waits for none of them
 * (the last call out frees). The {@link java.lang.ref.Cleaner} runs {@link #run()} for an owner
 * that was never closed, so this class must not refer to its owner.
 */
final class Handle implements Runnable {
  private final long ptr;
  private final LongConsumer free;
  private final String what;
  // Twice the number of calls inside, plus 1 once closed.
  private final AtomicInteger state = new AtomicInteger();
  private final AtomicBoolean freed = new AtomicBoolean();

  Handle(long ptr, LongConsumer free, String what) {
    this.ptr = ptr;
    this.free = free;
    this.what = what;
  }

  /** The pointer, for one call; pair with {@link #leave()} in a finally block. */
  long enter() {
    long p = tryEnter();
    if (p == 0) {
      throw new IllegalStateException("this " + what + " is closed");
    }
    return p;
  }

  /** As {@link #enter()}, or 0 (and nothing to leave) when the handle is closed. */
  long tryEnter() {
    int s = state.getAndAdd(2);
    if ((s & 1) != 0) {
      leave();
      return 0;
    }
    return ptr;
  }

  void leave() {
    if (state.addAndGet(-2) == 1) {
      release();
    }
  }

  void close() {
    int s = state.getAndUpdate(v -> v | 1);
    if (s == 0) {
      release();
    }
  }

  boolean isClosed() {
    return (state.get() & 1) != 0;
  }

  @Override
  public void run() {
    close();
  }

  private void release() {
    if (freed.compareAndSet(false, true)) {
      free.accept(ptr);
    }
  }
}
