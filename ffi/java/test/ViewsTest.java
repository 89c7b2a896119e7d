// Views through the Java package: LiveView (publish, refusals, routes equal to a plain Router's,
// a snapshot outliving a newer publish), a Watch of a file (an atomic rename applied, the
// census on the file source, a stop leaving it), and a real etcd: two publishers racing with
// the same expected version (exactly one wins), a watch in the census, the fleet status in sync.
//
// Usage: java -cp jna.jar:classes ViewsTest ETCD_HOST:PORT (ffi/test.sh starts etcd).
// Closes with "N passed, M failed"; exits non-zero on any failure. Waits poll with a deadline.

import io.github.keyroute.LiveView;
import io.github.keyroute.NoViewException;
import io.github.keyroute.Router;
import io.github.keyroute.StaleVersionException;
import io.github.keyroute.VersionConflictException;
import io.github.keyroute.Views;
import io.github.keyroute.Watch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

public final class ViewsTest {
  static int passed = 0;
  static int failed = 0;

  static final String A = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}";
  static final String B = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}";

  static void check(String name, boolean ok) {
    if (ok) {
      passed++;
    } else {
      failed++;
      System.out.println("FAIL " + name);
    }
  }

  static String doc(long version, String spec) {
    return "{\"version\":" + version + ",\"spec\":" + spec + "}";
  }

  static boolean waitFor(BooleanSupplier condition) throws InterruptedException {
    for (int waited = 0; waited < 30_000; waited += 20) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(20);
    }
    return false;
  }

  static long versionOf(LiveView live) {
    try {
      return live.version();
    } catch (NoViewException e) {
      return 0;
    }
  }

  static void liveView() {
    try (LiveView live = new LiveView(); Router a = Router.fromJson(A); Router b = Router.fromJson(B)) {
      try {
        live.version();
        check("no view yet", false);
      } catch (NoViewException e) {
        check("no view yet", true);
      }
      check("publish 1", live.publish(doc(1, A)) == 1);
      try {
        live.publish(doc(1, B));
        check("a stale version is refused", false);
      } catch (StaleVersionException e) {
        check("a stale version is refused", live.refusals() == 1 && live.lastRefusalJson().contains("stale_version"));
      }
      int agree = 0;
      for (int i = 0; i < 1000; i++) {
        String key = "key:" + i;
        agree += live.routeId(key).equals(a.routeId(key)) ? 1 : 0;
      }
      check("1,000 routes as a plain router's", agree == 1000);
      try (LiveView.View v1 = live.load()) {
        live.publish(doc(2, B));
        check("the snapshot outlives a publish", v1.version() == 1 && v1.nodeCount() == 3 && v1.nodeId(2).equals("c"));
        check("the live view moved on", live.version() == 2 && live.routeId("user:7").equals(b.routeId("user:7")));
        check("fingerprint text", v1.fingerprint().equals(String.format("%016x", a.fingerprint())));
        check("document", v1.documentJson().contains(v1.fingerprint()));
      }
      check("status", live.statusJson().contains("\"version\":2"));
      String longKey = "k".repeat(3000);
      check("a key longer than the scratch buffer", live.routeId(longKey).equals(b.routeId(longKey)));
      byte[] bytes = {0, 1, 2, (byte) 0xff};
      check("a byte key", live.routeId(bytes).equals(b.routeId(bytes)));
    }
  }

  /**
   * Routes from four threads while another publishes 200 versions, alternating two specs whose
   * ids differ: each id must be what one of the two routes the key to, so an index read with
   * the other version's ids would show (the live route gives the index with its version, and
   * the object keeps each version's ids).
   */
  static void liveViewUnderPublishes() throws Exception {
    String x = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"x0\"},{\"id\":\"x1\"},{\"id\":\"x2\"}]}";
    String y = "{\"algorithm\":\"jump\",\"nodes\":[{\"id\":\"y0\"},{\"id\":\"y1\"},{\"id\":\"y2\"},{\"id\":\"y3\"}]}";
    try (LiveView live = new LiveView(); Router rx = Router.fromJson(x); Router ry = Router.fromJson(y)) {
      live.publish(doc(1, x));
      AtomicInteger wrong = new AtomicInteger();
      AtomicInteger routed = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(4);
      for (int t = 0; t < 4; t++) {
        int seed = t;
        new Thread(() -> {
              for (int i = 0; i < 20_000; i++) {
                String key = "user:" + (seed * 20_000 + i);
                String id = live.routeId(key);
                if (!id.equals(rx.routeId(key)) && !id.equals(ry.routeId(key))) {
                  wrong.incrementAndGet();
                }
                routed.incrementAndGet();
              }
              done.countDown();
            })
            .start();
      }
      for (long v = 2; v <= 200; v++) {
        live.publish(doc(v, v % 2 == 0 ? y : x));
      }
      done.await();
      check("80,000 routes during 199 publishes, each an owner of its key in one of the views",
          wrong.get() == 0 && routed.get() == 80_000);
      check("after the publishes, routes as the last view", live.routeId("user:1").equals(ry.routeId("user:1")));
    }
  }

  static void fileWatch() throws Exception {
    Path dir = Files.createTempDirectory("keyroute-java-views");
    Path file = dir.resolve("view.json");
    Path tmp = dir.resolve("view.json.tmp");
    Files.write(file, doc(1, A).getBytes(StandardCharsets.UTF_8));
    String url = "file://" + file;
    try (LiveView live = new LiveView(); Watch watch = Watch.start(url, live, 0.05, false, true, "java-file-1", 0)) {
      check("file: first view applied", waitFor(() -> versionOf(live) == 1));
      check("file: instance", "java-file-1".equals(watch.instance()));
      Files.write(tmp, doc(2, B).getBytes(StandardCharsets.UTF_8));
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      check("file: a rename applies", waitFor(() -> versionOf(live) == 2));
      check("file: census lists the instance",
          waitFor(() -> Views.fleetStatus(url, 30).contains("\"instance\":\"java-file-1\"")));
      check("file: in sync", waitFor(() -> Views.fleetStatus(url, 30).contains("\"standing\":\"sync\"")));
      check("file: the census names the surface java",
          Views.fleetStatus(url, 30).contains("\"surface\":\"java\""));
      watch.stop();
      check("file: stopped", !watch.running());
      check("file: a stop leaves the census",
          waitFor(() -> !Views.fleetStatus(url, 30).contains("\"instance\":\"java-file-1\"")));
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  static void etcd(String endpoint) throws Exception {
    String url = "etcd://" + endpoint + "/keyroute/java-test-" + ProcessHandle.current().pid();
    check("etcd: publish 1", Views.publish(url, doc(1, A), 0) == 1);
    try (LiveView live = new LiveView(); Watch watch = Watch.start(url, live, 0, false, null, "java-etcd-1", 0)) {
      check("etcd: watch applied 1", waitFor(() -> versionOf(live) == 1));
      AtomicInteger wins = new AtomicInteger();
      AtomicInteger conflicts = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      Thread[] racers = new Thread[2];
      for (int i = 0; i < 2; i++) {
        String document = doc(2, i == 0 ? B : A);
        racers[i] = new Thread(() -> {
          try {
            start.await();
            Views.publish(url, document, 1);
            wins.incrementAndGet();
          } catch (VersionConflictException e) {
            conflicts.incrementAndGet();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        racers[i].start();
      }
      start.countDown();
      for (Thread t : racers) {
        t.join();
      }
      check("etcd: exactly one of two racing publishers wins", wins.get() == 1 && conflicts.get() == 1);
      check("etcd: watch applied 2", waitFor(() -> versionOf(live) == 2));
      check("etcd: census in sync", waitFor(() -> {
        String status = Views.fleetStatus(url, 30);
        return status.contains("\"instance\":\"java-etcd-1\"") && status.contains("\"standing\":\"sync\"");
      }));
      watch.stop();
      check("etcd: a stop leaves the census",
          waitFor(() -> !Views.fleetStatus(url, 30).contains("\"instance\":\"java-etcd-1\"")));
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: ViewsTest ETCD_HOST:PORT");
      System.exit(2);
    }
    liveView();
    liveViewUnderPublishes();
    fileWatch();
    etcd(args[0]);
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
