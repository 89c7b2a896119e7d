package io.github.keyroute;

/** Operations on a view source named by URL that need no live view: publish and the census. */
public final class Views {
  private Views() {}

  /**
   * Publishes a view document (JSON) to {@code url} if the source holds {@code expectVersion}
   * (0 for none): a compare-and-swap, so of two publishers expecting the same version one wins
   * and the other gets {@link VersionConflictException}. Returns the version published.
   */
  public static long publish(String url, String document, long expectVersion) {
    byte[] u = KrLibrary.utf8(KrLibrary.nonNull(url, "url"));
    byte[] doc = KrLibrary.utf8(KrLibrary.nonNull(document, "document"));
    long[] version = new long[1];
    KrLibrary.check(KrNative.kr_publish_view(u, u.length, doc, doc.length, expectVersion, null, 0, version));
    return version[0];
  }

  /**
   * The census of {@code url} read against its view, as JSON ({@code keyroute fleet status
   * --json}): an instance behind for longer than {@code deadlineSeconds} is stale.
   */
  public static String fleetStatus(String url, double deadlineSeconds) {
    byte[] u = KrLibrary.utf8(KrLibrary.nonNull(url, "url"));
    long[] json = new long[1];
    long[] len = new long[1];
    KrLibrary.check(KrNative.kr_fleet_status_json(u, u.length, deadlineSeconds, null, 0, json, len));
    return LiveView.taken(json[0], len[0]);
  }
}
