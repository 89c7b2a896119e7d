package io.github.keyroute;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The view a fleet routes with: the C ABI's {@code kr_live_view} (docs/views.md). {@link
 * #publish(String)} applies a newer version atomically; an older or equal version, or a document
 * that does not build, is refused (its exception is thrown), recorded, and the last good view
 * stays. A {@link Watch} feeds one from a file or etcd. Any number of threads route through one
 * live view while others publish to it.
 *
 * <p>A watch may swap the view at any moment, so read a node index and its id from one {@link
 * View} snapshot ({@link #load()}), or use {@link #routeId(String)}: one native call that gives
 * the owner's index with the version it belongs to, and the ids of that version, which this
 * object keeps (loaded from one snapshot the first time a version is seen).
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

  /** The node ids of one version, replaced whole (never changed in place). */
  private static final class Ids {
    final long version;
    final String[] ids;

    Ids(long version, String[] ids) {
      this.version = version;
      this.ids = ids;
    }
  }

  /** The ids of the newest version a route has seen (-1, no version, before the first). */
  private final AtomicReference<Ids> known = new AtomicReference<>(new Ids(-1, new String[0]));

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

  /** The id of the owner of a text key (its UTF-8) in the view in effect. */
  public String routeId(String key) {
    return routeId(KrLibrary.key(key));
  }

  /**
   * The id of the owner of {@code key} in the view in effect: one call of {@code
   * kr_live_view_route}, which gives the index with its version; the id comes from the ids this
   * object keeps for that version (index and id from one view). {@link NoViewException} before
   * a first view.
   */
  public String routeId(byte[] key) {
    KrLibrary.nonNull(key, "key");
    int index;
    long version;
    if (key.length <= Scratch.MAX_KEY) {
      Scratch scratch = Scratch.get();
      long k = scratch.putBytes(key);
      long p = handle.enter();
      try {
        KrLibrary.check(
            KrNative.kr_live_view_route(p, k, key.length, scratch.address, scratch.address + Scratch.VERSION));
      } finally {
        handle.leave();
      }
      index = scratch.result();
      version = scratch.version();
    } else {
      int[] node = new int[1];
      long[] v = new long[1];
      long p = handle.enter();
      try {
        KrLibrary.check(KrNative.kr_live_view_route(p, key, key.length, node, v));
      } finally {
        handle.leave();
      }
      index = node[0];
      version = v[0];
    }
    Ids ids = known.get();
    return ids.version == version ? ids.ids[index] : fresh(key);
  }

  /** Routes {@code key} on a snapshot and keeps the snapshot's ids if they are the newest seen. */
  private String fresh(byte[] key) {
    try (View view = load()) {
      String[] ids = new String[view.nodeCount()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = view.nodeId(i);
      }
      // Two threads meeting a new version both load it; the newer of what is kept and what
      // was loaded stays, so the kept ids never go back a version.
      known.accumulateAndGet(
          new Ids(view.version(), ids),
          (kept, loaded) ->
              kept.version == -1 || Long.compareUnsigned(loaded.version, kept.version) > 0 ? loaded : kept);
      return ids[view.route(key)];
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
