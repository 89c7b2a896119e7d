// keyroute's spymemcached NodeLocator (io.github.keyroute.spymemcached) inside a real
// MemcachedClient, against real memcached servers this test starts on 127.0.0.1 (free ports,
// stopped by their process at the end). For each case the client sets KEYS keys; then every
// server is read directly (`lru_crawler metadump hash`) and each key must be on exactly the
// server the reference names:
//
//   - the spymemcached preset (ketama hash; the LIBMEMCACHED node format with weights; the
//     fnv1a_32 hash): spymemcached's own KetamaNodeLocator over the same addresses;
//   - the native ring: `keyroute route` (the CLI) over a spec of the same node ids;
//   - updateLocator on the client's live locator, a node removed and then added back: the
//     KetamaNodeLocator updated the same way (and none of the keys on the removed server).
//
// It also checks the read-only copy MemcachedClient.getNodeLocator() hands out (spymemcached's
// MemcachedNodeROImpl nodes, the same routes, updateLocator refused), getSequence (the key's
// replica order after its primary; and in use: with FailureMode.Redistribute and a server
// stopped, that server's keys land on their second replica) and the typed errors.
//
// Usage: java -cp jna.jar:spymemcached.jar:classes -Djna.library.path=DIR
//        SpymemcachedLocatorTest KEYROUTE_CLI [keys per case, default 100000]
// Prints one line per check and closes with "N passed, M failed".

import io.github.keyroute.DuplicateNodeIdException;
import io.github.keyroute.EmptyTopologyException;
import io.github.keyroute.KeyrouteException;
import io.github.keyroute.Router;
import io.github.keyroute.UnknownAlgorithmException;
import io.github.keyroute.spymemcached.KeyrouteConnectionFactory;
import io.github.keyroute.spymemcached.KeyrouteNodeLocator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.FailureMode;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.MemcachedNodeROImpl;
import net.spy.memcached.NodeLocator;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public final class SpymemcachedLocatorTest {
  static int passed = 0;
  static int failed = 0;
  static int keys = 100_000;
  static final List<Process> servers = new ArrayList<>();
  static final List<InetSocketAddress> addresses = new ArrayList<>();

  static void check(boolean ok, String what) {
    if (ok) {
      passed++;
    } else {
      failed++;
    }
    System.out.println((ok ? "ok   " : "FAIL ") + what);
  }

  // ------------------------------------------------------------------ memcached servers

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  static boolean listening(int port) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      return s.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  /** Starts a memcached on a free port of 127.0.0.1 (a few tries: another process may take the port first). */
  static void startServer(String memcached) throws Exception {
    for (int attempt = 0; attempt < 5; attempt++) {
      int port = freePort();
      List<String> cmd = new ArrayList<>(List.of(memcached, "-l", "127.0.0.1", "-p", Integer.toString(port), "-U", "0",
          "-m", "64", "-t", "1"));
      if ("root".equals(System.getProperty("user.name"))) {
        cmd.add("-u");
        cmd.add("nobody");
      }
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      for (int i = 0; i < 200 && p.isAlive(); i++) {
        if (listening(port)) {
          servers.add(p);
          addresses.add(new InetSocketAddress("127.0.0.1", port));
          return;
        }
        Thread.sleep(25);
      }
      stop(p);
    }
    throw new IllegalStateException("could not start memcached");
  }

  static void stop(Process p) throws InterruptedException {
    p.destroy(); // this process's own child, by its handle
    if (!p.waitFor(5, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
    }
  }

  /**
   * The keys stored on one server that start with {@code prefix}, read with `lru_crawler metadump
   * hash` (memcached 1.6.18 or later), asked again while memcached answers BUSY (its own
   * background crawl is running).
   */
  static List<String> dump(InetSocketAddress server, String prefix) throws IOException, InterruptedException {
    for (int attempt = 0; ; attempt++) {
      List<String> found = dumpOnce(server, prefix);
      if (found != null) {
        return found;
      }
      if (attempt == 600) {
        throw new IOException("metadump on " + server + ": still BUSY after a minute");
      }
      Thread.sleep(100);
    }
  }

  /** One metadump, or null when memcached answered BUSY. */
  static List<String> dumpOnce(InetSocketAddress server, String prefix) throws IOException {
    List<String> found = new ArrayList<>();
    try (Socket s = new Socket(server.getAddress(), server.getPort())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      // `hash` walks the hash table: every key. `all` walks the LRUs and skips an item whose LRU
      // bump is still queued (CI saw 99,999 of 100,000 keys listed that way).
      out.write("lru_crawler metadump hash\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null && !line.equals("END")) {
        if (line.startsWith("BUSY")) {
          return null;
        }
        if (line.startsWith("ERROR") || line.startsWith("CLIENT_ERROR")) {
          throw new IOException("metadump on " + server + ": " + line);
        }
        if (line.startsWith("key=")) {
          int end = line.indexOf(' ');
          String key = URLDecoder.decode(line.substring(4, end < 0 ? line.length() : end), StandardCharsets.UTF_8);
          if (key.startsWith(prefix)) {
            found.add(key);
          }
        }
      }
    }
    return found;
  }

  // ------------------------------------------------------------------ the cases

  static List<String> keys(String prefix) {
    List<String> k = new ArrayList<>(keys);
    for (int i = 0; i < keys; i++) {
      k.add(prefix + (i % 3 == 0 ? "user:" : i % 3 == 1 ? "session/" : "item-") + i);
    }
    return k;
  }

  /** Sets every key through {@code client}, waiting for each. */
  static boolean setAll(MemcachedClient client, List<String> ks) throws Exception {
    List<Future<Boolean>> futures = new ArrayList<>(ks.size());
    for (String k : ks) {
      futures.add(client.set(k, 0, "v"));
      if (futures.size() >= 10_000) {
        for (Future<Boolean> f : futures) {
          if (!f.get(60, TimeUnit.SECONDS)) {
            return false;
          }
        }
        futures.clear();
      }
    }
    for (Future<Boolean> f : futures) {
      if (!f.get(60, TimeUnit.SECONDS)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every key of {@code ks} (all starting with {@code prefix}) is on the server {@code expected}
   * names (an index into {@link #addresses}), and on no other.
   */
  static void verify(String name, String prefix, List<String> ks, Function<String, Integer> expected)
      throws IOException, InterruptedException {
    Map<String, Integer> where = new HashMap<>(ks.size() * 2);
    int duplicates = 0;
    for (int s = 0; s < addresses.size(); s++) {
      for (String k : dump(addresses.get(s), prefix)) {
        if (where.put(k, s) != null) {
          duplicates++;
        }
      }
    }
    int agree = 0;
    String first = null;
    for (String k : ks) {
      Integer got = where.get(k);
      int want = expected.apply(k);
      if (got != null && got == want) {
        agree++;
      } else if (first == null) {
        first = k + " on " + (got == null ? "no server" : addresses.get(got)) + ", expected " + addresses.get(want);
      }
    }
    check(agree == ks.size() && where.size() == ks.size() && duplicates == 0, name + ": " + agree + "/" + ks.size()
        + " keys on the expected server (read back from each server)" + (first == null ? "" : "; first miss: " + first));
  }

  /** A MemcachedNode answering only getSocketAddress (for the reference KetamaNodeLocator). */
  static MemcachedNode proxyNode(InetSocketAddress addr) {
    return (MemcachedNode) Proxy.newProxyInstance(SpymemcachedLocatorTest.class.getClassLoader(),
        new Class<?>[] {MemcachedNode.class}, (proxy, m, args) -> {
          switch (m.getName()) {
            case "getSocketAddress":
              return addr;
            case "hashCode":
              return System.identityHashCode(proxy);
            case "equals":
              return proxy == args[0];
            case "toString":
              return "node(" + addr + ")";
            default:
              throw new UnsupportedOperationException(m.getName());
          }
        });
  }

  /** spymemcached's own locator over {@code servers} (indices into addresses). */
  static Function<String, Integer> ketama(List<Integer> servers, DefaultHashAlgorithm hash, KetamaNodeKeyFormatter.Format format,
      Map<InetSocketAddress, Integer> weights) {
    List<MemcachedNode> nodes = new ArrayList<>();
    Map<MemcachedNode, Integer> index = new HashMap<>();
    List<InetSocketAddress> fresh = fresh();
    for (int s : servers) {
      MemcachedNode n = proxyNode(fresh.get(s));
      nodes.add(n);
      index.put(n, s);
    }
    KetamaNodeLocator peer = new KetamaNodeLocator(nodes, hash, weights,
        new DefaultKetamaNodeLocatorConfiguration(new KetamaNodeKeyFormatter(format)));
    return k -> index.get(peer.getPrimary(k));
  }

  static List<Integer> all() {
    List<Integer> a = new ArrayList<>();
    for (int i = 0; i < addresses.size(); i++) {
      a.add(i);
    }
    return a;
  }

  /**
   * A plain factory from spymemcached's builder. FailureMode.Retry keeps every key on its primary
   * while the connections are still being made (Redistribute would send some to other nodes).
   */
  static ConnectionFactory base() {
    return new ConnectionFactoryBuilder().setOpTimeout(60_000).setFailureMode(FailureMode.Retry).build();
  }

  /**
   * The servers' addresses, new objects for each client: the LIBMEMCACHED node format asks an
   * address for its host name, after which that address's host string is "localhost".
   */
  static List<InetSocketAddress> fresh() {
    List<InetSocketAddress> a = new ArrayList<>();
    for (InetSocketAddress s : addresses) {
      a.add(new InetSocketAddress("127.0.0.1", s.getPort()));
    }
    return a;
  }

  /** One client over every server, routed by keyroute with {@code algorithm} and {@code params}; the keys set through it. */
  static void clientCase(String name, String prefix, String algorithm, String params, Map<InetSocketAddress, Integer> weights,
      Function<String, Integer> expected) throws Exception {
    List<String> ks = keys(prefix);
    KeyrouteConnectionFactory cf = new KeyrouteConnectionFactory(base(), algorithm, params, weights);
    MemcachedClient client = new MemcachedClient(cf, fresh());
    try {
      check(setAll(client, ks), name + ": the client set " + ks.size() + " keys");
      readOnlyCopy(name, client, cf.locator(), ks);
    } finally {
      client.shutdown(10, TimeUnit.SECONDS);
    }
    verify(name, prefix, ks, expected);
  }

  /** MemcachedClient.getNodeLocator(): a read-only KeyrouteNodeLocator routing as the live one. */
  static void readOnlyCopy(String name, MemcachedClient client, KeyrouteNodeLocator live, List<String> ks) {
    NodeLocator ro = client.getNodeLocator();
    boolean ok = ro instanceof KeyrouteNodeLocator && ro.getAll().size() == addresses.size();
    for (MemcachedNode n : ro.getAll()) {
      ok &= n instanceof MemcachedNodeROImpl;
    }
    for (int i = 0; ok && i < ks.size(); i += 97) {
      ok = ro.getPrimary(ks.get(i)).getSocketAddress().equals(live.getPrimary(ks.get(i)).getSocketAddress());
    }
    boolean refused = false;
    try {
      ro.updateLocator(new ArrayList<>(live.getAll()));
    } catch (UnsupportedOperationException e) {
      refused = true;
    }
    check(ok && refused, name + ": getNodeLocator() is a read-only copy (MemcachedNodeROImpl nodes, the same routes, "
        + "updateLocator refused)");
  }

  /** The native ring's owners from `keyroute route` over a spec of the same node ids. */
  static Function<String, Integer> cli(String keyroute, List<String> ks) throws Exception {
    StringBuilder spec = new StringBuilder("{\"algorithm\":\"ring\",\"nodes\":[");
    Map<String, Integer> byId = new HashMap<>();
    for (int i = 0; i < addresses.size(); i++) {
      String id = "127.0.0.1:" + addresses.get(i).getPort();
      byId.put(id, i);
      spec.append(i == 0 ? "" : ",").append("{\"id\":\"").append(id).append("\"}");
    }
    Path dir = Files.createTempDirectory("keyroute-spy");
    Path specFile = dir.resolve("ring.json");
    Path keyFile = dir.resolve("keys.txt");
    Path outFile = dir.resolve("routes.tsv");
    Files.writeString(specFile, spec.append("]}"));
    Files.write(keyFile, ks, StandardCharsets.UTF_8);
    Process p = new ProcessBuilder(keyroute, "route", "-t", specFile.toString()).redirectInput(keyFile.toFile())
        .redirectOutput(outFile.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("keyroute route exited with " + p.exitValue());
    }
    Map<String, Integer> owner = new HashMap<>();
    for (String line : Files.readAllLines(outFile, StandardCharsets.UTF_8)) {
      int tab = line.lastIndexOf('\t');
      owner.put(line.substring(0, tab), byId.get(line.substring(tab + 1)));
    }
    for (Path f : new Path[] {specFile, keyFile, outFile, dir}) {
      Files.delete(f);
    }
    check(owner.size() == ks.size(), "keyroute route (CLI) gave an owner for each of " + ks.size() + " keys");
    return owner::get;
  }

  /** updateLocator on the live locator of a client over every server: one node out, then back in. */
  static void membership() throws Exception {
    String name = "updateLocator";
    KeyrouteConnectionFactory cf = new KeyrouteConnectionFactory(base(), "spymemcached", null);
    MemcachedClient client = new MemcachedClient(cf, fresh());
    try {
      KeyrouteNodeLocator live = cf.locator();
      List<MemcachedNode> every = new ArrayList<>(live.getAll());
      int out = every.size() - 1;
      List<MemcachedNode> fewer = new ArrayList<>(every.subList(0, out));

      // A refused node list leaves the locator as it was.
      boolean kept = false;
      try {
        live.updateLocator(Collections.emptyList());
      } catch (EmptyTopologyException e) {
        kept = live.getAll().size() == every.size();
      }
      check(kept, name + ": an empty node list is refused (empty_topology) and leaves the locator as it was");

      live.updateLocator(fewer);
      List<Integer> three = all().subList(0, out);
      List<String> ks = keys("rm:");
      check(setAll(client, ks), name + ": " + ks.size() + " keys set with " + addresses.get(out) + " removed");
      Function<String, Integer> want = ketama(three, DefaultHashAlgorithm.KETAMA_HASH,
          KetamaNodeKeyFormatter.Format.SPYMEMCACHED, new HashMap<>());
      verify(name + ", node removed (KetamaNodeLocator over the other " + out + ")", "rm:", ks, want);

      live.updateLocator(every);
      List<String> ks2 = keys("add:");
      check(setAll(client, ks2), name + ": " + ks2.size() + " keys set with it added back");
      verify(name + ", node added back (KetamaNodeLocator over all " + every.size() + ")", "add:", ks2,
          ketama(all(), DefaultHashAlgorithm.KETAMA_HASH, KetamaNodeKeyFormatter.Format.SPYMEMCACHED, new HashMap<>()));

      // The same change through spymemcached's own updateLocator, and a fresh locator: same routes.
      KetamaNodeLocator peer = new KetamaNodeLocator(fewer, DefaultHashAlgorithm.KETAMA_HASH);
      KeyrouteNodeLocator ours = KeyrouteNodeLocator.create("spymemcached", null, fewer);
      peer.updateLocator(every);
      ours.updateLocator(every);
      KeyrouteNodeLocator fresh = KeyrouteNodeLocator.create("spymemcached", null, every);
      int agree = 0;
      for (String k : ks2) {
        MemcachedNode p = peer.getPrimary(k);
        if (ours.getPrimary(k) == p && fresh.getPrimary(k) == p) {
          agree++;
        }
      }
      check(agree == ks2.size() && ours.router().fingerprint() == fresh.router().fingerprint(), name
          + ": after an update, " + agree + "/" + ks2.size() + " keys where KetamaNodeLocator.updateLocator and a fresh "
          + "locator put them (same fingerprint)");
      sequence(every);
    } finally {
      client.shutdown(10, TimeUnit.SECONDS);
    }
  }

  /** getSequence: every other node, in the key's replica order after its primary. */
  static void sequence(List<MemcachedNode> nodes) {
    KeyrouteNodeLocator ring = KeyrouteNodeLocator.create("ring", null, nodes);
    boolean ok = true;
    Router r = ring.router();
    for (int i = 0; ok && i < 1000; i++) {
      String k = "seq:" + i;
      int[] order = r.replicas(k, nodes.size());
      ok = ring.getPrimary(k) == nodes.get(order[0]);
      Iterator<MemcachedNode> it = ring.getSequence(k);
      for (int j = 1; ok && j < order.length; j++) {
        ok = it.hasNext() && it.next() == nodes.get(order[j]);
      }
      ok &= !it.hasNext();
    }
    KeyrouteNodeLocator jump = KeyrouteNodeLocator.create("jump", null, nodes);
    ok &= !jump.getSequence("k").hasNext();
    check(ok, "getSequence: the other " + (nodes.size() - 1) + " nodes in the key's replica order (1000 keys); "
        + "empty for jump (no replica order)");
  }

  /**
   * getSequence in use: with FailureMode.Redistribute and one server stopped, spymemcached sends
   * the keys of the stopped server to the first active node of getSequence, which for keyroute
   * is the key's second replica. Stops the last server (run last).
   */
  static void failover() throws Exception {
    String name = "failover (Redistribute, a server stopped)";
    Logger.getLogger("net.spy.memcached").setLevel(Level.SEVERE); // the lost connection's warnings are expected
    ConnectionFactory base = new ConnectionFactoryBuilder().setOpTimeout(60_000)
        .setFailureMode(FailureMode.Redistribute).build();
    KeyrouteConnectionFactory cf = new KeyrouteConnectionFactory(base, "ring", null);
    MemcachedClient client = new MemcachedClient(cf, fresh());
    try {
      check(client.set("warm", 0, "v").get(60, TimeUnit.SECONDS), name + ": a first write");
      int down = addresses.size() - 1;
      KeyrouteNodeLocator live = cf.locator();
      List<MemcachedNode> nodes = new ArrayList<>(live.getAll());
      for (MemcachedNode n : nodes) { // every connection made before the server goes
        for (int i = 0; i < 400 && !n.isActive(); i++) {
          Thread.sleep(25);
        }
      }
      stop(servers.get(down));
      // The client sees a server go only when it next talks to it: write to one of its keys
      // until its connection is marked inactive.
      MemcachedNode gone = nodes.get(down);
      Router owner = live.router();
      String probe = null;
      for (int i = 0; probe == null; i++) {
        probe = owner.route("probe:" + i) == down ? "probe:" + i : null;
      }
      for (int i = 0; i < 100 && gone.isActive(); i++) {
        try {
          client.set(probe, 0, "v").get(1, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          // expected: the server is gone
        }
        Thread.sleep(50);
      }
      check(!gone.isActive(), name + ": the client sees " + addresses.get(down) + " down");
      List<String> ks = keys("fo:").subList(0, Math.min(keys, 20_000));
      check(setAll(client, ks), name + ": " + ks.size() + " keys set");
      Router r = live.router();
      int moved = 0;
      for (String k : ks) {
        moved += r.route(k) == down ? 1 : 0;
      }
      // The stopped server cannot be read: verify on the others, expecting its keys' second replica.
      List<InetSocketAddress> up = addresses.subList(0, down);
      Map<String, Integer> where = new HashMap<>();
      for (int s = 0; s < up.size(); s++) {
        for (String k : dump(up.get(s), "fo:")) {
          where.put(k, s);
        }
      }
      int agree = 0;
      for (String k : ks) {
        int[] order = r.replicas(k, 2);
        int want = order[0] == down ? order[1] : order[0];
        Integer got = where.get(k);
        agree += got != null && got == want ? 1 : 0;
      }
      check(agree == ks.size() && moved > 0, name + ": " + agree + "/" + ks.size() + " keys on their owner, the "
          + moved + " of the stopped server on their second replica");
    } finally {
      client.shutdown(10, TimeUnit.SECONDS);
    }
  }

  static void errors() {
    List<MemcachedNode> twice = List.of(proxyNode(addresses.get(0)), proxyNode(addresses.get(0)));
    boolean dup = false;
    boolean unknown = false;
    try {
      KeyrouteNodeLocator.create("ring", null, twice);
    } catch (DuplicateNodeIdException e) {
      dup = e.codeName().equals("duplicate_node_id");
    }
    try {
      KeyrouteNodeLocator.create("no-such-algorithm", null, List.of(proxyNode(addresses.get(0))));
    } catch (UnknownAlgorithmException e) {
      unknown = true;
    } catch (KeyrouteException e) {
      unknown = false;
    }
    check(dup && unknown, "errors: an address given twice is duplicate_node_id, an unknown algorithm unknown_algorithm");
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SunLogger");
    Logger.getLogger("net.spy.memcached").setLevel(Level.WARNING);
    String keyroute = args[0];
    if (args.length > 1) {
      keys = Integer.parseInt(args[1]);
    }
    String memcached = System.getenv().getOrDefault("MEMCACHED", "memcached");
    try {
      for (int i = 0; i < 4; i++) {
        startServer(memcached);
      }
      System.out.println("memcached on " + addresses);
      final DefaultHashAlgorithm K = DefaultHashAlgorithm.KETAMA_HASH;
      final KetamaNodeKeyFormatter.Format SPY = KetamaNodeKeyFormatter.Format.SPYMEMCACHED;
      clientCase("spymemcached preset (ketama)", "a:", "spymemcached", null, null, ketama(all(), K, SPY, new HashMap<>()));
      Map<InetSocketAddress, Integer> weights = new HashMap<>();
      for (int i = 0; i < addresses.size(); i++) {
        weights.put(addresses.get(i), i + 1);
      }
      clientCase("spymemcached preset (ketama, LIBMEMCACHED node keys, weights 1,2,3,4)", "b:", "spymemcached",
          "{\"format\":\"libmemcached\",\"weighted\":true}", weights,
          ketama(all(), K, KetamaNodeKeyFormatter.Format.LIBMEMCACHED, weights));
      clientCase("spymemcached preset (fnv1a_32)", "c:", "spymemcached", "{\"hash\":\"fnv1a_32\"}", null,
          ketama(all(), DefaultHashAlgorithm.FNV1A_32_HASH, SPY, new HashMap<>()));
      clientCase("native ring", "d:", "ring", null, null, cli(keyroute, keys("d:")));
      membership();
      errors();
      failover();
    } finally {
      for (Process p : servers) {
        stop(p);
      }
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 && passed > 0 ? 0 : 1);
  }
}
