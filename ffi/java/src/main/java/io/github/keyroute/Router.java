package io.github.keyroute;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;

/**
 * An immutable router built from a topology spec: the C ABI's {@code kr_router}. Thread-safe:
 * any number of threads may route through one router at the same time, and lookups take no lock
 * and allocate nothing in the library.
 *
 * <p>Keys are bytes ({@code byte[]}) or text ({@code String}, routed as its UTF-8; a string with
 * a lone surrogate has no UTF-8 and is refused with {@link InvalidUtf8Exception}). Routes are
 * indices into the spec's node list; {@link #nodeId(int)} gives a node's id. Every failure is a
 * typed {@link KeyrouteException} carrying the error table's stable code.
 *
 * <p>{@link #close()} releases the native router (idempotent; a call after it throws {@link
 * IllegalStateException}, and a close while other threads are still routing frees the router
 * only when the last of those calls returns). A router that is never closed is released when it
 * becomes unreachable.
 */
public final class Router implements AutoCloseable {
  private static final int KR_KEY_SIZE = 16; // struct kr_key { const uint8_t *ptr; size_t len; }

  final Handle handle;

  Router(long ptr) {
    this.handle = new Handle(ptr, KrNative::kr_router_free, "router");
    KrLibrary.CLEANER.register(this, handle);
  }

  /**
   * Parses a topology spec (JSON: {@code {"algorithm": "ring", "nodes": [{"id": "a"}, …]}}, see
   * conformance/VECTORS.md) and builds a router under the default limits.
   *
   * @throws KeyrouteException any error a spec can produce ({@link InvalidJsonException}, {@link
   *     UnknownAlgorithmException}, {@link DuplicateNodeIdException}, …)
   */
  public static Router fromJson(String spec) {
    byte[] json = KrLibrary.utf8(spec);
    long[] out = new long[1];
    KrLibrary.check(KrNative.kr_router_from_json(json, json.length, out));
    return new Router(out[0]);
  }

  /**
   * As {@link #fromJson(String)}, from the spec's bytes as read from a file (UTF-8; bytes that are
   * not are refused with {@link InvalidUtf8Exception}).
   */
  public static Router fromJson(byte[] spec) {
    return fromJson(spec, null);
  }

  /** As {@link #fromJson(byte[])} under other limits (see {@link #fromJson(String, String)}). */
  public static Router fromJson(byte[] spec, String limits) {
    byte[] lim = limits == null ? null : KrLibrary.utf8(limits);
    long[] out = new long[1];
    KrLibrary.check(KrNative.kr_router_from_json_with_limits(KrLibrary.nonNull(spec, "spec"), spec.length, lim, lim == null ? 0 : lim.length, out));
    return new Router(out[0]);
  }

  /**
   * As {@link #fromJson(String)} under other limits: {@code limits} is a JSON object of the limits
   * to change ({@code {"max_points": 8388608}}), or null for the defaults.
   */
  public static Router fromJson(String spec, String limits) {
    byte[] json = KrLibrary.utf8(spec);
    byte[] lim = limits == null ? null : KrLibrary.utf8(limits);
    long[] out = new long[1];
    KrLibrary.check(KrNative.kr_router_from_json_with_limits(json, json.length, lim, lim == null ? 0 : lim.length, out));
    return new Router(out[0]);
  }

  /** Starts a spec in code: {@code Router.builder("ring").node("a", 1, null).build()}. */
  public static Builder builder(String algorithm) {
    return new Builder(algorithm);
  }

  /**
   * The owner of {@code key}: an index into the spec's node list.
   *
   * @throws InvalidKeyException for a key the algorithm refuses (e.g. a {@code u64be} key that is
   *     not 8 bytes)
   */
  public int route(byte[] key) {
    if (KrLibrary.nonNull(key, "key").length <= Scratch.MAX_KEY) {
      Scratch scratch = Scratch.get();
      long k = scratch.putBytes(key);
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_route(p, k, key.length, scratch.address));
      } finally {
        handle.leave();
      }
      return scratch.result();
    }
    int[] node = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_route(p, key, key.length, node));
    } finally {
      handle.leave();
    }
    return node[0];
  }

  /**
   * The owner of a text key, routed as its UTF-8 (through {@code kr_route_utf16}, so the string's
   * chars go to the library as they are, and the library applies the key text policy).
   *
   * @throws InvalidUtf8Exception when the string holds a lone surrogate
   */
  public int route(String key) {
    if (KrLibrary.nonNull(key, "key").length() <= Scratch.MAX_KEY / 2) {
      Scratch scratch = Scratch.get();
      long k = scratch.putChars(key);
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_route_utf16(p, k, key.length(), scratch.address));
      } finally {
        handle.leave();
      }
      return scratch.result();
    }
    char[] units = key.toCharArray();
    int[] node = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_route_utf16(p, units, units.length, node));
    } finally {
      handle.leave();
    }
    return node[0];
  }

  /** The owner's id (one call: {@code kr_route_id}). */
  public String routeId(byte[] key) {
    long[] id = new long[1];
    long[] len = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_route_id(p, KrLibrary.nonNull(key, "key"), key.length, id, len));
      return KrLibrary.text(id[0], len[0]); // borrowed from the router: read before leaving
    } finally {
      handle.leave();
    }
  }

  /** The owner's id, for a text key. */
  public String routeId(String key) {
    return routeId(KrLibrary.key(key));
  }

  /**
   * Routes every key in one native call (the core's batch path): {@code result[i]} is the owner of
   * {@code keys[i]}. The keys are packed into native memory once, so the per-key cost is mostly
   * the library's, not JNA's.
   */
  public int[] routeBatch(byte[][] keys) {
    int[] nodes = new int[KrLibrary.nonNull(keys, "key array").length];
    if (keys.length == 0) {
      return nodes;
    }
    long total = 0;
    for (byte[] k : keys) {
      total += KrLibrary.nonNull(k, "key").length;
    }
    // One native block: the kr_key spans, then the keys' bytes, written by plain Java through a
    // ByteBuffer view (a JNA Memory write is a native call per key).
    long spansSize = (long) keys.length * KR_KEY_SIZE;
    if (spansSize + total > Integer.MAX_VALUE) {
      throw new InvalidParameterException("a batch of more than 2 GiB of keys and spans; split it");
    }
    try (com.sun.jna.Memory block = new com.sun.jna.Memory(Math.max(1, spansSize + total))) {
      java.nio.ByteBuffer buf = block.getByteBuffer(0, block.size()).order(java.nio.ByteOrder.nativeOrder());
      long base = com.sun.jna.Pointer.nativeValue(block);
      int offset = (int) spansSize;
      for (int i = 0; i < keys.length; i++) {
        byte[] k = keys[i];
        buf.putLong(i * KR_KEY_SIZE, base + offset);
        buf.putLong(i * KR_KEY_SIZE + 8, k.length);
        buf.position(offset);
        buf.put(k);
        offset += k.length;
      }
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_route_batch(p, block, keys.length, nodes, nodes.length));
      } finally {
        handle.leave();
      }
    }
    return nodes;
  }

  /**
   * Routes every text key in one native call, as {@link #routeBatch(byte[][])} over their UTF-8.
   *
   * @throws InvalidUtf8Exception when a key holds a lone surrogate (nothing is routed)
   */
  public int[] routeBatch(List<String> keys) {
    byte[][] bytes = new byte[KrLibrary.nonNull(keys, "key list").size()][];
    int i = 0;
    for (String k : keys) {
      bytes[i++] = KrLibrary.key(k);
    }
    return routeBatch(bytes);
  }

  /**
   * {@code count} distinct nodes for {@code key}, in preference order ({@code [0]} is the
   * owner), spread over distinct zones first when nodes carry zones.
   *
   * @throws ReplicasUnsupportedException for algorithms with no replica order (jump, modulo, …)
   * @throws ReplicasExceedNodesException for more replicas than nodes (checked before an array
   *     is sized from {@code count})
   */
  public int[] replicas(byte[] key, int count) {
    KrLibrary.count(count, "count");
    KrLibrary.nonNull(key, "key");
    if (count > nodeCount()) {
      // Refused by the library as kr_replicas refuses it (no replica order, a bad key, too few
      // nodes), without a count-sized array: kr_spread checks r against the nodes first.
      int[] node = new int[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_spread(p, key, key.length, count, 0, node));
      } finally {
        handle.leave();
      }
      throw ErrorCode.REPLICAS_EXCEED_NODES.exception(count + " replicas requested but the router has "
          + nodeCount() + " nodes");
    }
    int[] nodes = new int[count];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_replicas(p, key, key.length, nodes, count));
    } finally {
      handle.leave();
    }
    return nodes;
  }

  /** As {@link #replicas(byte[], int)}, for a text key. */
  public int[] replicas(String key, int count) {
    return replicas(KrLibrary.key(key), count);
  }

  /**
   * Read spreading for a hot key: the {@code selector mod r}-th of the key's first {@code r}
   * replicas (owner first). Pass a hash of the client's id as {@code selector} for a copy that
   * stays the same per client, or a random number to spread every read. Writes must reach all
   * {@code r} copies.
   *
   * @throws InvalidParameterException for {@code r} = 0 (or negative)
   */
  public int spread(byte[] key, int r, long selector) {
    int[] node = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_spread(p, KrLibrary.nonNull(key, "key"), key.length, KrLibrary.count(r, "r"), selector, node));
    } finally {
      handle.leave();
    }
    return node[0];
  }

  /** As {@link #spread(byte[], int, long)}, for a text key. */
  public int spread(String key, int r, long selector) {
    return spread(KrLibrary.key(key), r, selector);
  }

  /**
   * The slot {@code key} falls in, for routers built on a slot table ({@code slots}, {@code
   * redis-cluster}); empty for the others.
   */
  public OptionalInt slot(byte[] key) {
    byte[] has = new byte[1];
    int[] slot = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_slot(p, KrLibrary.nonNull(key, "key"), key.length, has, slot));
    } finally {
      handle.leave();
    }
    return has[0] != 0 ? OptionalInt.of(slot[0]) : OptionalInt.empty();
  }

  /** As {@link #slot(byte[])}, for a text key. */
  public OptionalInt slot(String key) {
    return slot(KrLibrary.key(key));
  }

  /**
   * The 64-bit number this router routes {@code key} on (XXH3-64 for the native ring, jump, Maglev
   * and modulo; the peer's key hash for ring presets; the key itself for jump over {@code u64be}
   * keys): {@link #routeHash(long)} of it is the key's owner.
   *
   * @throws RouteHashUnsupportedException for algorithms that do not route on one 64-bit hash
   *     (rendezvous, multi-probe, slots, presets that check or rewrite keys)
   */
  public long keyHash(byte[] key) {
    long[] hash = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_key_hash(p, KrLibrary.nonNull(key, "key"), key.length, hash));
    } finally {
      handle.leave();
    }
    return hash[0];
  }

  /** As {@link #keyHash(byte[])}, for a text key (its UTF-8). */
  public long keyHash(String key) {
    return keyHash(KrLibrary.key(key));
  }

  /**
   * The owner of any key whose {@link #keyHash(byte[])} is {@code hash}.
   *
   * @throws RouteHashUnsupportedException as {@link #keyHash(byte[])}
   */
  public int routeHash(long hash) {
    int[] node = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_route_hash(p, hash, node));
    } finally {
      handle.leave();
    }
    return node[0];
  }

  /**
   * Routes every hash in one native call: {@code result[i]} is the owner of {@code hashes[i]}.
   *
   * @throws RouteHashUnsupportedException as {@link #keyHash(byte[])}
   */
  public int[] routeHashBatch(long[] hashes) {
    int[] nodes = new int[KrLibrary.nonNull(hashes, "hash array").length];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_route_hash_batch(p, hashes, hashes.length, nodes, nodes.length));
    } finally {
      handle.leave();
    }
    return nodes;
  }

  /** The share of keys each node owns, and their balance (the library measures it; see {@link Ownership}). */
  public Ownership ownership() {
    List<String> ids = nodeIds();
    double[] shares = new double[ids.size()];
    KrNative.KrOwnershipSummary summary = new KrNative.KrOwnershipSummary();
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_ownership(p, shares, shares.length, summary.getPointer()));
    } finally {
      handle.leave();
    }
    summary.read();
    return new Ownership(ids, shares, summary);
  }

  /**
   * What changing from this router (view A) to {@code to} (view B) moves, nodes matched by id: the
   * figures {@code keyroute plan} prints (see {@link Diff}).
   *
   * @throws InvalidKeyException when sample keys are needed and one of the routers refuses them
   */
  public Diff diff(Router to) {
    long[] out = new long[1];
    long a = handle.enter();
    try {
      long b = KrLibrary.nonNull(to, "router").handle.enter();
      try {
        KrLibrary.check(KrNative.kr_diff_new(a, b, out));
      } finally {
        to.handle.leave();
      }
    } finally {
      handle.leave();
    }
    try {
      return new Diff(this, to, out[0]);
    } finally {
      KrNative.kr_diff_free(out[0]);
    }
  }

  /** What this router supports (see {@link Capabilities}). */
  public Capabilities capabilities() {
    KrNative.KrCapabilities c = new KrNative.KrCapabilities();
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_capabilities(p, c.getPointer()));
    } finally {
      handle.leave();
    }
    c.read();
    return new Capabilities(c);
  }

  /** The number of nodes (routes are below it). */
  public int nodeCount() {
    int[] count = new int[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_node_count(p, count));
    } finally {
      handle.leave();
    }
    return count[0];
  }

  /**
   * The id of node {@code index}.
   *
   * @throws NodeOutOfRangeException when {@code index} is not a node (negative or not below
   *     {@link #nodeCount()})
   */
  public String nodeId(int index) {
    long[] id = new long[1];
    long[] len = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_node_id(p, index, id, len));
      return KrLibrary.text(id[0], len[0]);
    } finally {
      handle.leave();
    }
  }

  /** Every node's id, in the spec's order (index {@code i} is node {@code i}). */
  public List<String> nodeIds() {
    int n = nodeCount();
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(nodeId(i));
    }
    return Collections.unmodifiableList(ids);
  }

  /**
   * The fingerprint of the router's view: XXH3-64 of its canonical spec. Two processes holding
   * the same fingerprint route every key the same way.
   */
  public long fingerprint() {
    long[] fp = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_fingerprint(p, fp));
    } finally {
      handle.leave();
    }
    return fp[0];
  }

  /** The version the spec declared (0 when it declared none). */
  public long version() {
    long[] v = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_version(p, v));
    } finally {
      handle.leave();
    }
    return v[0];
  }

  /** The canonical JSON of the router's spec (every default filled in, keys sorted). */
  public String canonicalJson() {
    long[] json = new long[1];
    long[] len = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_canonical_json(p, json, len));
      return KrLibrary.text(json[0], len[0]);
    } finally {
      handle.leave();
    }
  }

  /**
   * A second handle to the same router (a counted reference, no copy), with a lifetime of its
   * own: closing either leaves the other usable.
   */
  public Router duplicate() {
    long[] out = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_router_clone(p, out));
    } finally {
      handle.leave();
    }
    return new Router(out[0]);
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return handle.isClosed();
  }

  /** Releases the native router (idempotent). */
  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return handle.isClosed() ? "Router(closed)" : "Router(" + nodeCount() + " nodes, fingerprint "
        + Long.toHexString(fingerprint()) + ")";
  }

  /**
   * A topology spec assembled in code (the C ABI's {@code kr_builder}): algorithm, parameters,
   * nodes, version. Not for concurrent use. It keeps its nodes, so adding a node and building
   * again gives the next topology. Values are checked when a router is built.
   */
  public static final class Builder implements AutoCloseable {
    private final Handle handle;

    Builder(String algorithm) {
      byte[] a = KrLibrary.utf8(algorithm);
      long[] out = new long[1];
      KrLibrary.check(KrNative.kr_builder_new(a, a.length, out));
      this.handle = new Handle(out[0], KrNative::kr_builder_free, "builder");
      KrLibrary.CLEANER.register(this, handle);
    }

    /** Replaces the algorithm's parameters with a JSON object ({@code {"points_per_weight":40}}). */
    public Builder params(String json) {
      byte[] j = KrLibrary.utf8(json);
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_set_params_json(p, j, j.length));
      } finally {
        handle.leave();
      }
      return this;
    }

    /** Sets the view's version (at most 2^53 − 1, checked when building). */
    public Builder version(long version) {
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_set_version(p, version));
      } finally {
        handle.leave();
      }
      return this;
    }

    /** Appends a node with weight 1 and no zone. */
    public Builder node(String id) {
      return node(id, 1, null);
    }

    /**
     * Appends a node: its id, integer weight (0 to 2^32 − 1; negative is refused) and zone (null
     * for none). Routes are indices in the order nodes are added.
     */
    public Builder node(String id, long weight, String zone) {
      if (weight < 0 || weight > 0xFFFF_FFFFL) {
        throw new InvalidParameterException("a node weight must be 0 to 4294967295, got " + weight);
      }
      byte[] i = KrLibrary.utf8(id);
      byte[] z = zone == null ? null : KrLibrary.utf8(zone);
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_add_node(p, i, i.length, (int) weight, z, z == null ? 0 : z.length));
      } finally {
        handle.leave();
      }
      return this;
    }

    /** Sets the last node's host and port (0 to 65535), for the memcached-family presets. */
    public Builder address(String host, int port) {
      if (port < 0 || port > 0xFFFF) {
        throw new InvalidParameterException("a port must be 0 to 65535, got " + port);
      }
      byte[] h = KrLibrary.utf8(host);
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_set_node_address(p, h, h.length, (short) port));
      } finally {
        handle.leave();
      }
      return this;
    }

    /** Sets the last node's peer-side name (spymemcached's node key, twemproxy's server name). */
    public Builder name(String name) {
      byte[] n = KrLibrary.utf8(name);
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_set_node_name(p, n, n.length));
      } finally {
        handle.leave();
      }
      return this;
    }

    /** Gives the last node the slots {@code first..=last} ({@code slots}, {@code redis-cluster}). */
    public Builder slots(int first, int last) {
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_add_node_slots(p, first, last));
      } finally {
        handle.leave();
      }
      return this;
    }

    /** Validates the spec assembled so far and builds a router; the builder stays usable. */
    public Router build() {
      long[] out = new long[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_builder_build(p, out));
      } finally {
        handle.leave();
      }
      return new Router(out[0]);
    }

    /** Releases the builder (idempotent); routers it built stay valid. */
    @Override
    public void close() {
      handle.close();
    }
  }
}
