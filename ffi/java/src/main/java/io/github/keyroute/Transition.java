package io.github.keyroute;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A gradual change from router A to router B: the C ABI's {@code kr_transition}. At progress 0
 * every key routes as in A, at 1 as in B; in between the keys that move cut over in a fixed order
 * (a key once cut over stays so as progress grows). A key that has cut over to another node gives
 * its previous owner too ({@link #routeWithFallback(String)}): read there on a miss.
 *
 * <p>Node indices are the transition's own: A's nodes in A's order, then B's nodes that A lacks
 * (by id); {@link #nodeId(int)} gives their ids. Thread-safe: any number of threads may route
 * while one of them moves the progress with {@link #setProgress(double)}.
 *
 * <pre>{@code
 * try (Transition t = new Transition(before, after, 0.0)) {
 *   t.setProgress(0.25);                        // a quarter of the moving keys cut over
 *   Transition.Placement p = t.routeWithFallback("user:42");
 *   // p.owner(): where the key lives now; p.previous(): where to read on a miss, or null
 * }
 * }</pre>
 */
public final class Transition implements AutoCloseable {
  private final Handle handle;

  /**
   * A transition from {@code from} (view A) to {@code to} (view B) at {@code progress} in [0, 1].
   * It copies what it needs of both routers: the caller keeps (and still closes) them.
   *
   * @throws InvalidParameterException for a progress outside [0, 1] or not a number
   */
  public Transition(Router from, Router to, double progress) {
    long[] out = new long[1];
    long a = KrLibrary.nonNull(from, "from router").handle.enter();
    try {
      long b = KrLibrary.nonNull(to, "to router").handle.enter();
      try {
        KrLibrary.check(KrNative.kr_transition_new(a, b, progress, out));
      } finally {
        to.handle.leave();
      }
    } finally {
      from.handle.leave();
    }
    this.handle = new Handle(out[0], KrNative::kr_transition_free, "transition");
    KrLibrary.CLEANER.register(this, handle);
  }

  /** Where a key routes during a transition: its owner now, and its previous owner if it moved. */
  public static final class Placement {
    private final String owner;
    private final String previous;

    Placement(String owner, String previous) {
      this.owner = owner;
      this.previous = previous;
    }

    /** The node that owns the key now. */
    public String owner() {
      return owner;
    }

    /** The node that owned it before, when it has cut over to a different node; else null. */
    public String previous() {
      return previous;
    }

    @Override
    public String toString() {
      return previous == null ? owner : owner + " (previously " + previous + ")";
    }
  }

  /** The progress, in [0, 1]. */
  public double progress() {
    double[] out = new double[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_transition_progress(p, out));
    } finally {
      handle.leave();
    }
    return out[0];
  }

  /**
   * Moves the transition to {@code progress} in [0, 1], atomically: routes that follow see it,
   * routes under way finish with the progress they started with.
   *
   * @throws InvalidParameterException for a progress outside [0, 1] or not a number (the
   *     transition keeps its progress)
   */
  public void setProgress(double progress) {
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_transition_set_progress(p, progress));
    } finally {
      handle.leave();
    }
  }

  /** The owner of {@code key} at the current progress: a transition node index. */
  public int routeIndex(byte[] key) {
    int[] node = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_transition_route(p, KrLibrary.nonNull(key, "key"), key.length, node));
    } finally {
      handle.leave();
    }
    return node[0];
  }

  /** As {@link #routeIndex(byte[])}, for a text key (its UTF-8). */
  public int routeIndex(String key) {
    return routeIndex(KrLibrary.key(key));
  }

  /** The id of the owner of {@code key} at the current progress. */
  public String route(byte[] key) {
    return nodeId(routeIndex(key));
  }

  /** As {@link #route(byte[])}, for a text key. */
  public String route(String key) {
    return route(KrLibrary.key(key));
  }

  /** The owner of {@code key} now and, when it has cut over to a different node, the previous one. */
  public Placement routeWithFallback(byte[] key) {
    KrNative.KrPlacement placed = new KrNative.KrPlacement();
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_transition_route_with_fallback(p, KrLibrary.nonNull(key, "key"), key.length, placed.getPointer()));
      placed.read();
      return new Placement(nodeIdEntered(p, placed.owner), placed.hasPrevious != 0 ? nodeIdEntered(p, placed.previous) : null);
    } finally {
      handle.leave();
    }
  }

  /** As {@link #routeWithFallback(byte[])}, for a text key. */
  public Placement routeWithFallback(String key) {
    return routeWithFallback(KrLibrary.key(key));
  }

  /** Whether {@code key} has cut over to its owner in view B at the current progress. */
  public boolean hasCutOver(byte[] key) {
    byte[] cut = new byte[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_transition_has_cut_over(p, KrLibrary.nonNull(key, "key"), key.length, cut));
    } finally {
      handle.leave();
    }
    return cut[0] != 0;
  }

  /** As {@link #hasCutOver(byte[])}, for a text key. */
  public boolean hasCutOver(String key) {
    return hasCutOver(KrLibrary.key(key));
  }

  /** The number of the transition's nodes (A's, then B's that A lacks). */
  public int nodeCount() {
    int[] count = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_transition_node_count(p, count));
    } finally {
      handle.leave();
    }
    return count[0];
  }

  /**
   * The id of transition node {@code index}.
   *
   * @throws NodeOutOfRangeException when {@code index} is not a node
   */
  public String nodeId(int index) {
    long p = handle.enter();
    try {
      return nodeIdEntered(p, index);
    } finally {
      handle.leave();
    }
  }

  private static String nodeIdEntered(long p, int index) {
    long[] id = new long[1];
    long[] len = new long[1];
    KrLibrary.check(KrNative.kr_transition_node_id(p, index, id, len));
    return KrLibrary.text(id[0], len[0]);
  }

  /** Every node's id, in the transition's order. */
  public List<String> nodeIds() {
    int n = nodeCount();
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(nodeId(i));
    }
    return Collections.unmodifiableList(ids);
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /** Releases the native transition (idempotent). */
  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return isClosed() ? "Transition(closed)" : "Transition(progress " + progress() + ", " + nodeCount() + " nodes)";
  }
}
