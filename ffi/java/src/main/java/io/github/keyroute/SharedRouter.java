package io.github.keyroute;

/**
 * A router behind an atomically swappable reference: the C ABI's {@code kr_shared_router}.
 * Threads {@link #load()} the current router and route with it while another thread {@link
 * #store(Router) stores} a new one; neither side takes a lock. A loaded router is a handle of its
 * own: route, read ids and fingerprints through that one handle so that every answer comes from
 * the same topology, and close it when done.
 *
 * <pre>{@code
 * try (SharedRouter shared = new SharedRouter(first)) {
 *   shared.store(second);                  // readers switch atomically
 *   try (Router view = shared.load()) {    // one consistent view
 *     String owner = view.nodeId(view.route("user:42"));
 *   }
 * }
 * }</pre>
 */
public final class SharedRouter implements AutoCloseable {
  private final Handle handle;

  /**
   * A shared router that starts with {@code initial}. It takes its own reference: the caller
   * keeps (and still closes) {@code initial}.
   */
  public SharedRouter(Router initial) {
    long[] out = new long[1];
    long r = KrLibrary.nonNull(initial, "router").handle.enter();
    try {
      KrLibrary.check(KrNative.kr_shared_router_new(r, out));
    } finally {
      initial.handle.leave();
    }
    this.handle = new Handle(out[0], KrNative::kr_shared_router_free, "shared router");
    KrLibrary.CLEANER.register(this, handle);
  }

  /** The current router, as a new handle (close it when done). No lock, no copy. */
  public Router load() {
    long[] out = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_shared_router_load(p, out));
    } finally {
      handle.leave();
    }
    return new Router(out[0]);
  }

  /**
   * Publishes {@code router} as the current router, atomically: loads that follow get it, loads
   * already made keep the router they got. The caller keeps (and still closes) its handle.
   */
  public void store(Router router) {
    long p = handle.enter();
    try {
      long r = KrLibrary.nonNull(router, "router").handle.enter();
      try {
        KrLibrary.check(KrNative.kr_shared_router_store(p, r));
      } finally {
        router.handle.leave();
      }
    } finally {
      handle.leave();
    }
  }

  /** The owner of {@code key} in the current router (a load, a route and a release). */
  public int route(byte[] key) {
    try (Router view = load()) {
      return view.route(key);
    }
  }

  /** The owner of a text key in the current router. */
  public int route(String key) {
    try (Router view = load()) {
      return view.route(key);
    }
  }

  /** The owner's id in the current router: index and id from the same view. */
  public String routeId(String key) {
    try (Router view = load()) {
      return view.routeId(key);
    }
  }

  /** Releases the shared router (idempotent); routers loaded from it stay valid. */
  @Override
  public void close() {
    handle.close();
  }
}
