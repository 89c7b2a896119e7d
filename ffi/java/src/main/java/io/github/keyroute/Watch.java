package io.github.keyroute;

import com.sun.jna.Memory;
import java.lang.ref.Reference;

/**
 * A running watch of a view source feeding a {@link LiveView}: the C ABI's {@code kr_watch}. It
 * reads the source ({@code file:///abs/path}, a plain path, or {@code etcd://HOST:PORT/KEY}) on
 * a thread of its own and publishes every change to the live view; poll the live view for what
 * it routes with. With the census on (the default for etcd) it registers as an instance until
 * {@link #stop()}.
 *
 * <pre>{@code
 * try (LiveView live = new LiveView(); Watch watch = Watch.start("/etc/keyroute/view.json", live)) {
 *   String owner = live.routeId("user:42"); // once the watch has applied the file's view
 * }
 * }</pre>
 */
public final class Watch implements AutoCloseable {
  /** The surface the census names, {@code java}: memory of its own for the process's life. */
  private static final int SURFACE_BYTES = 4;
  private static final Memory SURFACE = new Memory(SURFACE_BYTES);

  static {
    SURFACE.write(0, "java".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, SURFACE_BYTES);
  }

  private final Handle handle;

  private Watch(long ptr) {
    this.handle = new Handle(ptr, KrNative::kr_watch_free, "watch");
    KrLibrary.CLEANER.register(this, handle);
  }

  /** A watch of {@code url} feeding {@code view}, with every default. */
  public static Watch start(String url, LiveView view) {
    return start(url, view, 0, false, null, null, 0);
  }

  /**
   * A watch of {@code url} feeding {@code view}: the source is read again every {@code
   * pollIntervalSeconds} (0: 1 second) and, unless {@code pollOnly}, at once on a change
   * notification. {@code census}: true or false, or null for the default (on for etcd); the
   * instance id is {@code instance} (null: {@code HOST-PID}), its entry outliving the watch by
   * {@code censusTtlSeconds} (0: 10 seconds).
   */
  public static Watch start(String url, LiveView view, double pollIntervalSeconds, boolean pollOnly, Boolean census,
      String instance, double censusTtlSeconds) {
    byte[] u = KrLibrary.utf8(KrLibrary.nonNull(url, "url"));
    KrNative.KrWatchOptions options = new KrNative.KrWatchOptions();
    options.pollIntervalSeconds = pollIntervalSeconds;
    options.pollOnly = (byte) (pollOnly ? 1 : 0);
    options.census = census == null ? KrNative.KR_CENSUS_DEFAULT : census ? KrNative.KR_CENSUS_ON : KrNative.KR_CENSUS_OFF;
    Memory id = null;
    if (instance != null) {
      byte[] bytes = KrLibrary.utf8(instance);
      id = new Memory(Math.max(1, bytes.length));
      id.write(0, bytes, 0, bytes.length);
      options.instance = id;
      options.instanceLen = bytes.length;
    }
    options.censusTtlSeconds = censusTtlSeconds;
    options.surface = SURFACE;
    options.surfaceLen = SURFACE_BYTES;
    options.write();
    long[] out = new long[1];
    long v = KrLibrary.nonNull(view, "view").handle.enter();
    try {
      KrLibrary.check(KrNative.kr_watch_start(u, u.length, v, options.getPointer(), out));
    } finally {
      view.handle.leave();
      Reference.reachabilityFence(options);
      Reference.reachabilityFence(id);
    }
    return new Watch(out[0]);
  }

  /** Stops the watch and waits for its thread; it leaves the census. Stopping twice is harmless. */
  public void stop() {
    long p = handle.tryEnter();
    if (p == 0) {
      return;
    }
    try {
      KrLibrary.check(KrNative.kr_watch_stop(p));
    } finally {
      handle.leave();
    }
  }

  /** Whether the watch runs. */
  public boolean running() {
    byte[] out = new byte[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_watch_running(p, out));
    } finally {
      handle.leave();
    }
    return out[0] != 0;
  }

  /** The id the watch registered in the census as, or null. */
  public String instance() {
    long[] id = new long[1];
    long[] len = new long[1];
    long p = handle.enter();
    try {
      KrLibrary.check(KrNative.kr_watch_instance(p, id, len));
      return id[0] == 0 ? null : KrLibrary.text(id[0], len[0]);
    } finally {
      handle.leave();
    }
  }

  /** Stops the watch (if it runs) and releases it (idempotent). */
  @Override
  public void close() {
    stop();
    handle.close();
  }

}
