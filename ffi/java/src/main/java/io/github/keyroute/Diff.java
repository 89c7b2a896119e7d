package io.github.keyroute;

import com.sun.jna.Memory;
import com.sun.jna.Structure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * What changing from router A to router B moves, nodes matched by id ({@link Router#diff(Router)}):
 * the figures {@code keyroute plan} prints. Exact for rings, Maglev and slot tables, in closed form
 * for two jump, two modulo or two rendezvous routers, from sample keys otherwise ({@link
 * #method()}).
 */
public final class Diff {
  private final double moved;
  private final double idealMoved;
  private final String method;
  private final int sampleKeys;
  private final List<Flow> flows;
  private final List<NodeChange> nodes;
  private final List<MovedArc> movedArcs;

  /** A share of all keys that goes from a node of A to a node of B. */
  public static final class Flow {
    private final String from;
    private final String to;
    private final int fromIndex;
    private final int toIndex;
    private final double share;
    private final boolean moved;

    Flow(String from, String to, KrNative.KrFlow f) {
      this.from = from;
      this.to = to;
      this.fromIndex = f.fromIndex;
      this.toIndex = f.toIndex;
      this.share = f.share;
      this.moved = f.moved != 0;
    }

    /** The node in A. */
    public String from() {
      return from;
    }

    /** The node in B. */
    public String to() {
      return to;
    }

    /** {@link #from()}'s index in A. */
    public int fromIndex() {
      return fromIndex;
    }

    /** {@link #to()}'s index in B. */
    public int toIndex() {
      return toIndex;
    }

    /** The share of all keys. */
    public double share() {
      return share;
    }

    /** Whether the two are different nodes (false for the keys that stay). */
    public boolean moved() {
      return moved;
    }

    @Override
    public String toString() {
      return from + " -> " + to + ": " + share;
    }
  }

  /** One node's change, as a row of the table {@code keyroute plan} prints. */
  public static final class NodeChange {
    private final String id;
    private final int fromIndex;
    private final int toIndex;
    private final double before;
    private final double after;
    private final double gained;
    private final double lost;

    NodeChange(String id, KrNative.KrNodeChange c) {
      this.id = id;
      this.fromIndex = c.fromIndex == KrNative.KR_NO_NODE ? -1 : c.fromIndex;
      this.toIndex = c.toIndex == KrNative.KR_NO_NODE ? -1 : c.toIndex;
      this.before = c.before;
      this.after = c.after;
      this.gained = c.gained;
      this.lost = c.lost;
    }

    /** The node's id. */
    public String id() {
      return id;
    }

    /** Its index in A, or -1 when A lacks it. */
    public int fromIndex() {
      return fromIndex;
    }

    /** Its index in B, or -1 when B lacks it. */
    public int toIndex() {
      return toIndex;
    }

    /** Its share of keys in A. */
    public double before() {
      return before;
    }

    /** Its share of keys in B. */
    public double after() {
      return after;
    }

    /** The share of keys it takes over from other nodes. */
    public double gained() {
      return gained;
    }

    /** The share of keys other nodes take over from it. */
    public double lost() {
      return lost;
    }
  }

  /** A moved piece of the key-hash space: hashes {@code start..end} (inclusive, unsigned). */
  public static final class MovedArc {
    private final long start;
    private final long end;
    private final String from;
    private final String to;

    MovedArc(String from, String to, KrNative.KrMovedArc m) {
      this.start = m.start;
      this.end = m.end;
      this.from = from;
      this.to = to;
    }

    /** The first hash of the piece (an unsigned 64-bit value). */
    public long start() {
      return start;
    }

    /** The last hash of the piece, inclusive (an unsigned 64-bit value). */
    public long end() {
      return end;
    }

    /** Its owner in A. */
    public String from() {
      return from;
    }

    /** Its owner in B. */
    public String to() {
      return to;
    }
  }

  /** Computes the diff through one native diff handle, released before returning. */
  Diff(Router a, Router b, long diff) {
    KrNative.KrDiffFigures fig = new KrNative.KrDiffFigures();
    KrLibrary.check(KrNative.kr_diff_summary(diff, fig.getPointer()));
    fig.read();
    this.moved = fig.moved;
    this.idealMoved = fig.idealMoved;
    this.method = methodName(fig.method);
    this.sampleKeys = fig.sampleKeys;
    List<String> idsA = a.nodeIds();
    List<String> idsB = b.nodeIds();
    List<Flow> fl = new ArrayList<>();
    for (KrNative.KrFlow f : copy(fig.flowCount, KrNative.KrFlow::new,
        (m, n, c) -> KrNative.kr_diff_flows(diff, m, n, c))) {
      fl.add(new Flow(idsA.get(f.fromIndex), idsB.get(f.toIndex), f));
    }
    List<NodeChange> nc = new ArrayList<>();
    for (KrNative.KrNodeChange c : copy(fig.nodeCount, KrNative.KrNodeChange::new,
        (m, n, c2) -> KrNative.kr_diff_nodes(diff, m, n, c2))) {
      nc.add(new NodeChange(c.fromIndex != KrNative.KR_NO_NODE ? idsA.get(c.fromIndex) : idsB.get(c.toIndex), c));
    }
    List<MovedArc> arcs = new ArrayList<>();
    for (KrNative.KrMovedArc m : copy(fig.movedArcCount, KrNative.KrMovedArc::new,
        (mem, n, c) -> KrNative.kr_diff_moved_arcs(diff, mem, n, c))) {
      arcs.add(new MovedArc(idsA.get(m.fromIndex), idsB.get(m.toIndex), m));
    }
    this.flows = Collections.unmodifiableList(fl);
    this.nodes = Collections.unmodifiableList(nc);
    this.movedArcs = Collections.unmodifiableList(arcs);
  }

  /** A {@code kr_diff_*} copy call: (buffer, its length, the count out). */
  private interface CopyCall {
    int call(com.sun.jna.Pointer buffer, long length, long[] count);
  }

  /** {@code count} structs copied by {@code call} into one native buffer, then read. */
  private static <T extends Structure> List<T> copy(long count, Function<com.sun.jna.Pointer, T> at, CopyCall call) {
    if (count > Integer.MAX_VALUE) {
      throw new InvalidParameterException("a diff of more than 2^31 entries");
    }
    List<T> out = new ArrayList<>((int) count);
    long[] got = new long[1];
    if (count == 0) {
      KrLibrary.check(call.call(null, 0, got));
      return out;
    }
    int size = at.apply(null).size();
    try (Memory block = new Memory(count * size)) {
      KrLibrary.check(call.call(block, count, got));
      for (int i = 0; i < got[0]; i++) {
        T s = at.apply(block.share((long) i * size));
        s.read();
        out.add(s);
      }
    }
    return out;
  }

  /** The name of an analysis method ({@code kr_analysis_method}). */
  static String methodName(int method) {
    String name = KrNative.kr_analysis_method_name(method);
    if (name == null) {
      throw new InternalException("the library reported analysis method " + method + ", which this package does not know");
    }
    return name;
  }

  /** The share of keys whose owner (by id) changes. */
  public double moved() {
    return moved;
  }

  /** The least any router could move for this change of nodes and weights. */
  public double idealMoved() {
    return idealMoved;
  }

  /** How the figures were obtained: {@code exact}, {@code slot_share}, {@code expected} or {@code sampled}. */
  public String method() {
    return method;
  }

  /** The sample keys routed when {@link #method()} is {@code sampled}; else 0. */
  public int sampleKeys() {
    return sampleKeys;
  }

  /** Every (from, to) pair with a positive share, staying keys included, sorted by position. */
  public List<Flow> flows() {
    return flows;
  }

  /** The change per node: A's nodes in A's order, then B's nodes that A lacks. */
  public List<NodeChange> nodes() {
    return nodes;
  }

  /** The moved pieces of the key-hash space, in hash order (exact diffs only; else empty). */
  public List<MovedArc> movedArcs() {
    return movedArcs;
  }
}
