package keyroute;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;

/**
 * A keyroute router, through the C ABI ({@code libkeyroute.so}, loaded with JNA from
 * {@code jna.library.path}). Immutable and thread-safe; {@link #close()} releases it (a
 * {@link Cleaner} releases a router that was never closed).
 *
 * <p>Every method is a thin call into {@code keyroute.h}: no routing, hashing or validation
 * happens in Java. Keys are bytes; routes are indices into the spec's node list.
 */
public final class Router implements AutoCloseable {

  /** The C functions, as declared in keyroute.h ({@code size_t} is {@code long} on LP64). */
  interface Lib extends Library {
    int kr_router_from_json(byte[] json, long jsonLen, PointerByReference router);

    void kr_router_free(Pointer router);

    int kr_route(Pointer router, byte[] key, long keyLen, IntByReference node);

    int kr_route_batch(Pointer router, Pointer keys, long keyCount, int[] nodes, long nodesLen);

    int kr_replicas(Pointer router, byte[] key, long keyLen, int[] nodes, long count);

    int kr_router_node_count(Pointer router, IntByReference count);

    int kr_router_node_id(Pointer router, int index, PointerByReference id, LongByReference idLen);

    int kr_router_fingerprint(Pointer router, LongByReference fingerprint);

    int kr_builder_new(byte[] algorithm, long algorithmLen, PointerByReference builder);

    void kr_builder_free(Pointer builder);

    int kr_builder_set_params_json(Pointer builder, byte[] json, long jsonLen);

    int kr_builder_set_version(Pointer builder, long version);

    int kr_builder_add_node(Pointer builder, byte[] id, long idLen, int weight, byte[] zone, long zoneLen);

    int kr_builder_set_node_address(Pointer builder, byte[] host, long hostLen, short port);

    int kr_builder_set_node_name(Pointer builder, byte[] name, long nameLen);

    int kr_builder_build(Pointer builder, PointerByReference router);

    Pointer kr_last_error_message();

    Pointer kr_status_name(int status);
  }

  static final Lib LIB = Native.load("keyroute", Lib.class);
  private static final Cleaner CLEANER = Cleaner.create();
  private static final int KR_OK = 0;
  private static final int KR_KEY_SIZE = 16; // struct kr_key { const uint8_t *ptr; size_t len; }

  private final Pointer handle;
  private final Cleaner.Cleanable cleanable;

  private Router(Pointer handle) {
    this.handle = handle;
    this.cleanable = CLEANER.register(this, () -> LIB.kr_router_free(handle));
  }

  /** Throws the library's error for a failed status (the message is thread-local in C). */
  static void check(int status) {
    if (status != KR_OK) {
      Pointer name = LIB.kr_status_name(status);
      String message = LIB.kr_last_error_message().getString(0, "UTF-8");
      throw new KeyRouteException(status, name == null ? "unknown" : name.getString(0, "US-ASCII"), message);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Parses a topology spec (JSON, see conformance/VECTORS.md) and builds a router. */
  public static Router fromJson(String spec) {
    byte[] json = utf8(spec);
    PointerByReference out = new PointerByReference();
    check(LIB.kr_router_from_json(json, json.length, out));
    return new Router(out.getValue());
  }

  /** Starts a spec in code: {@code Router.builder("ring").node("a", 1, null).build()}. */
  public static Builder builder(String algorithm) {
    return new Builder(algorithm);
  }

  /** The owner of {@code key}: an index into the spec's node list. */
  public int route(byte[] key) {
    IntByReference node = new IntByReference();
    check(LIB.kr_route(handle, key, key.length, node));
    return node.getValue();
  }

  /** The owner's id. */
  public String routeId(byte[] key) {
    return nodeId(route(key));
  }

  /**
   * Routes every key in one call (the C ABI's batch path): {@code result[i]} is the owner of
   * {@code keys[i]}. The keys are packed into native memory once, so the per-key cost is the
   * library's, not JNA's.
   */
  public int[] routeBatch(byte[][] keys) {
    int[] nodes = new int[keys.length];
    if (keys.length == 0) {
      return nodes;
    }
    long total = 0;
    for (byte[] k : keys) {
      total += k.length;
    }
    Memory bytes = new Memory(Math.max(1, total));
    Memory spans = new Memory((long) keys.length * KR_KEY_SIZE);
    long base = Pointer.nativeValue(bytes);
    long offset = 0;
    for (int i = 0; i < keys.length; i++) {
      bytes.write(offset, keys[i], 0, keys[i].length);
      spans.setLong((long) i * KR_KEY_SIZE, base + offset);
      spans.setLong((long) i * KR_KEY_SIZE + 8, keys[i].length);
      offset += keys[i].length;
    }
    check(LIB.kr_route_batch(handle, spans, keys.length, nodes, nodes.length));
    return nodes;
  }

  /** {@code count} distinct nodes for {@code key}, in preference order. */
  public int[] replicas(byte[] key, int count) {
    int[] nodes = new int[count];
    check(LIB.kr_replicas(handle, key, key.length, nodes, count));
    return nodes;
  }

  /** The number of nodes. */
  public int nodeCount() {
    IntByReference count = new IntByReference();
    check(LIB.kr_router_node_count(handle, count));
    return count.getValue();
  }

  /** The id of node {@code index}. */
  public String nodeId(int index) {
    PointerByReference id = new PointerByReference();
    LongByReference len = new LongByReference();
    check(LIB.kr_router_node_id(handle, index, id, len));
    return new String(id.getValue().getByteArray(0, (int) len.getValue()), StandardCharsets.UTF_8);
  }

  /** XXH3-64 of the canonical spec: equal fingerprints route every key the same way. */
  public long fingerprint() {
    LongByReference fp = new LongByReference();
    check(LIB.kr_router_fingerprint(handle, fp));
    return fp.getValue();
  }

  @Override
  public void close() {
    cleanable.clean();
  }

  /** A topology spec assembled in code (the C ABI's {@code kr_builder}). */
  public static final class Builder implements AutoCloseable {
    private final Pointer handle;
    private final Cleaner.Cleanable cleanable;

    private Builder(String algorithm) {
      byte[] a = utf8(algorithm);
      PointerByReference out = new PointerByReference();
      check(LIB.kr_builder_new(a, a.length, out));
      Pointer h = out.getValue();
      this.handle = h;
      this.cleanable = CLEANER.register(this, () -> LIB.kr_builder_free(h));
    }

    /** Replaces the algorithm's parameters with a JSON object. */
    public Builder params(String json) {
      byte[] j = utf8(json);
      check(LIB.kr_builder_set_params_json(handle, j, j.length));
      return this;
    }

    /** Sets the view's version. */
    public Builder version(long version) {
      check(LIB.kr_builder_set_version(handle, version));
      return this;
    }

    /** Appends a node (zone may be null). */
    public Builder node(String id, int weight, String zone) {
      byte[] i = utf8(id);
      byte[] z = zone == null ? null : utf8(zone);
      check(LIB.kr_builder_add_node(handle, i, i.length, weight, z, z == null ? 0 : z.length));
      return this;
    }

    /** Sets the last node's host and port (memcached-family presets). */
    public Builder address(String host, int port) {
      byte[] h = utf8(host);
      check(LIB.kr_builder_set_node_address(handle, h, h.length, (short) port));
      return this;
    }

    /** Sets the last node's peer-side name (e.g. spymemcached's node key). */
    public Builder name(String name) {
      byte[] n = utf8(name);
      check(LIB.kr_builder_set_node_name(handle, n, n.length));
      return this;
    }

    /** Validates and builds a router; the builder stays usable. */
    public Router build() {
      PointerByReference out = new PointerByReference();
      check(LIB.kr_builder_build(handle, out));
      return new Router(out.getValue());
    }

    @Override
    public void close() {
      cleanable.clean();
    }
  }
}
