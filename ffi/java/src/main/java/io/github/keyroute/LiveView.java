package io.github.keyroute;

import java.nio.charset.StandardCharsets;

/**
 * The view a fleet routes with: the C ABI's {@code kr_live_view} (docs/views.md). {@link
 * #publish(String)} applies a newer version atomically; an older or equal version, or a document
 * that does not build, is refused (its exception is thrown), recorded, and the last good view
 * stays. A {@link Watch} feeds one from a file or etcd. Any number of threads route through one
 * live view while others publish to it.
 *
 * <p>A watch may swap the view at any moment, so read a node index and its id from one {@link
 * View} snapshot ({@link #load()}), or use {@link #routeId(String)}, which does.
 *
 * <pre>{@code
 * try (LiveView live = new LiveView()) {
 *   live.publish("{\"version\":1,\"spec\":{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"}]}}");
 *   String owner = live.routeId("user:42");
 * }
 * }</pre>
 */
public final class LiveView implements AutoCloseable {
  final Handle handle;

  /** A live view with no view yet, reading documents under the default limits. */
  public LiveView() {
    this(null);
  }

  /**
   * A live view with no view yet, reading documents under {@code limitsJson} (the limits to
   * change, as JSON), or the defaults when it is null.
   */
  public LiveView(String limitsJson) {
    long[] out = new long[1];
    byte[] limits = limitsJson == null ? null : KrLibrary.utf8(limitsJson);
    KrLibrary.check(KrNative.kr_live_view_new(limits, limits == null ? 0 : limits.length, out));
    this.handle = new Handle(out[0], KrNative::kr_live_view_free, "live view");
    KrLibrary.CLEANER.register(this, handle);
  }

  /** Applies a view document (JSON) if it is newer and builds; returns the version applied. */
  public long publish(String document) {
    byte[] doc = KrLibrary.utf8(KrLibrary.nonNull(document, "document"));
    long[] version = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_live_view_publish(p, doc, doc.length, version));
    } finally {
      handle.leave();
    }
    return version[0];
  }

  /** The view in effect, as a snapshot (close it when done). {@link NoViewException} before one. */
  public View load() {
    long[] out = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_live_view_load(p, out));
    } finally {
      handle.leave();
    }
    return new View(out[0]);
  }

  /** The id of the owner of {@code key} in the view in effect (index and id from one view). */
  public String routeId(String key) {
    try (View view = load()) {
      return view.nodeId(view.route(key));
    }
  }

  /** The version in effect ({@link NoViewException} before one). */
  public long version() {
    long[] out = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_live_view_version(p, out));
    } finally {
      handle.leave();
    }
    return out[0];
  }

  /** How many documents this live view has refused. */
  public long refusals() {
    long[] out = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_live_view_refusals(p, out));
    } finally {
      handle.leave();
    }
    return out[0];
  }

  /** The last refusal as JSON ({@code at_unix_ms, code, error, message, version}), or null. */
  public String lastRefusalJson() {
    long[] json = new long[1];
    long[] len = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_live_view_last_refusal_json(p, json, len));
    } finally {
      handle.leave();
    }
    return json[0] == 0 ? null : taken(json[0], len[0]);
  }

  /** What the live view routes with, as JSON (version, fingerprint, progress, refusals, …). */
  public String statusJson() {
    long[] json = new long[1];
    long[] len = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_live_view_status_json(p, json, len));
    } finally {
      handle.leave();
    }
    return taken(json[0], len[0]);
  }

  /** A string the library allocated, as a String, released. */
  static String taken(long ptr, long len) {
    try {
      return KrLibrary.text(ptr, len);
    } finally {
      KrNative.kr_string_free(ptr);
    }
  }

  /** Releases the live view (idempotent); snapshots and watches keep their own references. */
  @Override
  public void close() {
    handle.close();
  }

  /**
   * One applied view: the C ABI's {@code kr_view}. Its routes, ids, version and fingerprint
   * come from that one view and stay valid while it is open, whatever is published meanwhile.
   */
  public static final class View implements AutoCloseable {
    private final Handle handle;

    View(long ptr) {
      this.handle = new Handle(ptr, KrNative::kr_view_free, "view");
      KrLibrary.CLEANER.register(this, handle);
    }

    /** The owner of a text key: an index into this view's nodes ({@link #nodeId(int)}). */
    public int route(String key) {
      return route(KrLibrary.key(key));
    }

    /** The owner of {@code key}: an index into this view's nodes. */
    public int route(byte[] key) {
      KrLibrary.nonNull(key, "key");
      int[] node = new int[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_view_route(p, key, key.length, node));
      } finally {
        handle.leave();
      }
      return node[0];
    }

    /** The id of node {@code index}. */
    public String nodeId(int index) {
      long[] id = new long[1];
      long[] len = new long[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_view_node_id(p, index, id, len));
        return KrLibrary.text(id[0], len[0]);
      } finally {
        handle.leave();
      }
    }

    /** How many nodes {@link #nodeId(int)} names. */
    public int nodeCount() {
      int[] out = new int[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_view_node_count(p, out));
      } finally {
        handle.leave();
      }
      return out[0];
    }

    /** The view's version. */
    public long version() {
      long[] out = new long[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_view_version(p, out));
      } finally {
        handle.leave();
      }
      return out[0];
    }

    /** The view's fingerprint as text: 16 lowercase hex digits, the same on every surface. */
    public String fingerprint() {
      byte[] text = new byte[KrNative.KR_FINGERPRINT_TEXT_LEN];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_view_fingerprint_text(p, text));
      } finally {
        handle.leave();
      }
      return new String(text, 0, text.length - 1, StandardCharsets.US_ASCII);
    }

    /** The view as a canonical view document (JSON). */
    public String documentJson() {
      long[] json = new long[1];
      long[] len = new long[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_view_document_json(p, json, len));
      } finally {
        handle.leave();
      }
      return taken(json[0], len[0]);
    }

    /** Releases the snapshot (idempotent). */
    @Override
    public void close() {
      handle.close();
    }
  }
}
