package io.github.keyroute;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Consistent hashing with bounded loads over a router: the C ABI's {@code kr_bounded}. It keeps
 * live request counts per node and places each key on the first node of its replica order
 * serving fewer than ⌈c · (total + 1) · weight / total weight⌉ requests, so no node takes more
 * than {@code c} times its share; a key is served at home whenever its owner has room.
 * Thread-safe: the counts are atomic.
 *
 * <pre>{@code
 * try (BoundedLoad bounded = new BoundedLoad(router, 1.25);
 *     BoundedLoad.Lease lease = bounded.acquire("user:42")) {
 *   send(lease.node());        // the slot is given back when the lease closes
 * }
 * }</pre>
 */
public final class BoundedLoad implements AutoCloseable {
  /** The usual balance factor. */
  public static final double DEFAULT_BALANCE_FACTOR = 1.25;

  private final Handle handle;

  /**
   * Bounded loads over {@code router} with balance factor {@code c} (1 to 1000). Takes its own
   * reference to the router: the caller keeps (and still closes) its handle.
   *
   * @throws InvalidParameterException for a {@code c} out of range
   * @throws ReplicasUnsupportedException for algorithms with no order past the owner
   */
  public BoundedLoad(Router router, double c) {
    long[] out = new long[1];
    long r = KrLibrary.nonNull(router, "router").handle.enter();
    try {
      KrLibrary.check(KrNative.kr_bounded_new(r, c, out));
    } finally {
      router.handle.leave();
    }
    this.handle = new Handle(out[0], KrNative::kr_bounded_free, "bounded load");
    KrLibrary.CLEANER.register(this, handle);
  }

  /** Places {@code key} and takes a slot on its node until the lease is closed. */
  public Lease acquire(byte[] key) {
    int[] node = new int[1];
    int[] rank = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_bounded_acquire(p, KrLibrary.nonNull(key, "key"), key.length, node, rank));
    } finally {
      handle.leave();
    }
    return new Lease(node[0], rank[0]);
  }

  /** As {@link #acquire(byte[])}, for a text key. */
  public Lease acquire(String key) {
    return acquire(KrLibrary.key(key));
  }

  /** Where {@code key} would be placed now, without taking a slot. */
  public Placement pick(byte[] key) {
    int[] node = new int[1];
    int[] rank = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_bounded_pick(p, KrLibrary.nonNull(key, "key"), key.length, node, rank));
    } finally {
      handle.leave();
    }
    return new Placement(node[0], rank[0]);
  }

  /** As {@link #pick(byte[])}, for a text key. */
  public Placement pick(String key) {
    return pick(KrLibrary.key(key));
  }

  /**
   * The requests in flight on {@code node}.
   *
   * @throws NodeOutOfRangeException when {@code node} is not a node
   */
  public int load(int node) {
    int[] load = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_bounded_load(p, node, load, null));
    } finally {
      handle.leave();
    }
    return load[0];
  }

  /** The requests in flight on every node. */
  public int total() {
    int[] total = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_bounded_load(p, 0, null, total));
    } finally {
      handle.leave();
    }
    return total[0];
  }

  /** Releases the counts (idempotent); slots still held are forgotten with them. */
  @Override
  public void close() {
    handle.close();
  }

  /** Where a key is placed: a node and its rank in the key's preference order. */
  public static class Placement {
    private final int node;
    private final int rank;

    Placement(int node, int rank) {
      this.node = node;
      this.rank = rank;
    }

    /** The node's index. */
    public int node() {
      return node;
    }

    /** The node's position in the key's preference order (0: the key's owner). */
    public int rank() {
      return rank;
    }

    /** Whether the key is served by its owner. */
    public boolean isHome() {
      return rank == 0;
    }

    @Override
    public String toString() {
      return "node " + node + " (rank " + rank + ")";
    }
  }

  /** A slot taken on a node: {@link #close()} gives it back, once. */
  public final class Lease extends Placement implements AutoCloseable {
    private final AtomicBoolean released = new AtomicBoolean();

    Lease(int node, int rank) {
      super(node, rank);
    }

    /**
     * Gives the slot back (idempotent). After the bounded load itself was closed there is nothing
     * to give back, and this does nothing.
     */
    @Override
    public void close() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      long p = handle.tryEnter();
      if (p == 0) {
        return;
      }
      try {
        KrLibrary.check(KrNative.kr_bounded_release(p, node()));
      } finally {
        handle.leave();
      }
    }
  }
}
