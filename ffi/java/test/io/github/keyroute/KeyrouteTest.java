// The Java package's own tests: every public method of Router, Router.Builder, SharedRouter,
// BoundedLoad, Transition, Ownership, Diff, Capabilities and Keyroute, every error kind of the table (mapped to its typed exception and
// checked against the library's own names, and raised through the API wherever the C ABI can
// produce it from Java), closing and the Cleaner (no leak: VmRSS stays flat over 200,000
// routers), and the thread-safety the C ABI documents (routing while another thread swaps,
// bounded loads from many threads, a close racing with calls).
//
// It lives in the package so that it can also call the two C functions the public API never
// misuses (a null handle, a short batch buffer) to see those codes arrive typed.
//
// Usage: java -cp jna.jar:classes -Djna.library.path=DIR io.github.keyroute.KeyrouteTest VERSION
// Closes with "N passed, M failed" (checks); exits non-zero if any failed.

package io.github.keyroute;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

public final class KeyrouteTest {
  static int passed = 0;
  static int failed = 0;
  static final Set<String> raised = new HashSet<>();

  static void check(String name, boolean ok) {
    if (ok) {
      passed++;
    } else {
      failed++;
      System.out.println("FAIL " + name);
    }
  }

  interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body}, which must throw {@code type} with the kind {@code name}. */
  static void expect(String name, Class<? extends KeyrouteException> type, String codeName, Body body) {
    try {
      body.run();
      check(name + ": expected " + codeName + ", nothing was thrown", false);
    } catch (KeyrouteException e) {
      ErrorCode kind = e.errorCode();
      boolean ok = type.isInstance(e) && e.getClass() == type && e.codeName().equals(codeName) && kind != null
          && kind.codeName().equals(codeName) && e.code() == kind.code() && e.category().equals(kind.category())
          && e.getMessage() != null && !e.getMessage().isEmpty();
      if (ok) {
        raised.add(codeName);
      }
      check(name + ": expected " + type.getSimpleName() + " " + codeName + ", got " + e, ok);
    } catch (Exception e) {
      check(name + ": expected " + codeName + ", got " + e, false);
    }
  }

  static void expectState(String name, Body body) {
    try {
      body.run();
      check(name + ": expected IllegalStateException", false);
    } catch (IllegalStateException e) {
      check(name, true);
    } catch (Exception e) {
      check(name + ": expected IllegalStateException, got " + e, false);
    }
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static final String RING3 = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"cache-a\",\"zone\":\"z1\"},"
      + "{\"id\":\"cache-b\",\"zone\":\"z2\",\"weight\":2},{\"id\":\"cache-c\",\"zone\":\"z1\"}],\"version\":7}";

  // ------------------------------------------------------------------ the error table

  static String pascal(String snake) {
    StringBuilder sb = new StringBuilder();
    for (String part : snake.split("_")) {
      sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return sb.toString();
  }

  static void errorTable() {
    // Every status the library names is a kind here with the same name, and the reverse.
    int named = 0;
    for (int code = 1; code < 1000; code++) {
      String name = Keyroute.statusName(code);
      ErrorCode kind = ErrorCode.fromCode(code);
      if (name == null) {
        check("no Java kind for unnamed status " + code, kind == null);
        continue;
      }
      named++;
      check("status " + code + " (" + name + ") has a Java kind of that name", kind != null && kind.codeName().equals(name));
    }
    check("statusName(0) is ok", "ok".equals(Keyroute.statusName(0)));
    check("as many kinds as named statuses", named == ErrorCode.values().length);
    for (ErrorCode kind : ErrorCode.values()) {
      KeyrouteException e = kind.exception("m");
      // <Name>Exception, or KeyrouteNullPointerException where java.lang has the plain name.
      String cls = e.getClass().getSimpleName();
      check(kind + " gives " + pascal(kind.codeName()) + "Exception",
          (cls.equals(pascal(kind.codeName()) + "Exception") || cls.equals("Keyroute" + pascal(kind.codeName()) + "Exception"))
              && e.errorCode() == kind
              && e.code() == kind.code() && e.codeName().equals(kind.codeName()) && e.category().equals(kind.category())
              && "m".equals(e.getMessage()) && !kind.description().isEmpty() && ErrorCode.fromCode(kind.code()) == kind);
    }
    KeyrouteException unknown = new KeyrouteException(4242, "future_kind", "newer library");
    check("an unknown code stays readable", unknown.errorCode() == null && unknown.code() == 4242
        && unknown.category().equals("unknown") && unknown.toString().contains("future_kind 4242"));
  }

  /** Every kind the C ABI can produce from Java, raised through the API as its typed class. */
  static void errorsThroughTheApi() throws Exception {
    expect("invalid json", InvalidJsonException.class, "invalid_json", () -> Router.fromJson("{\"algorithm\":"));
    expect("invalid spec", InvalidSpecException.class, "invalid_spec", () -> Router.fromJson("[1,2,3]"));
    expect("unknown algorithm", UnknownAlgorithmException.class, "unknown_algorithm",
        () -> Router.fromJson("{\"algorithm\":\"nope\",\"nodes\":[{\"id\":\"a\"}]}"));
    expect("unknown algorithm (builder)", UnknownAlgorithmException.class, "unknown_algorithm",
        () -> Router.builder("nope").node("a").build());
    expect("empty topology", EmptyTopologyException.class, "empty_topology", () -> Router.builder("ring").build());
    expect("duplicate node id", DuplicateNodeIdException.class, "duplicate_node_id",
        () -> Router.builder("ring").node("a").node("a").build());
    expect("zero total weight", ZeroTotalWeightException.class, "zero_total_weight",
        () -> Router.builder("rendezvous").node("a", 0, null).build());
    expect("too many nodes", TooManyNodesException.class, "too_many_nodes",
        () -> Router.fromJson("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}", "{\"max_nodes\":1}"));
    expect("too many points", TooManyPointsException.class, "too_many_points",
        () -> Router.builder("ring").node("a", 4294967295L, null).build());
    expect("invalid node id", InvalidNodeIdException.class, "invalid_node_id", () -> Router.builder("ring").node("").build());
    expect("weights unsupported", WeightsUnsupportedException.class, "weights_unsupported",
        () -> Router.builder("jump").node("a").node("b", 2, null).build());
    expect("table size not prime", TableSizeNotPrimeException.class, "table_size_not_prime",
        () -> Router.builder("maglev").params("{\"table_size\":65536}").node("a").build());
    expect("table size out of range", TableSizeOutOfRangeException.class, "table_size_out_of_range",
        () -> Router.builder("maglev").params("{\"table_size\":2}").node("a").node("b").node("c").build());
    expect("invalid parameter (points 0)", InvalidParameterException.class, "invalid_parameter",
        () -> Router.builder("ring").params("{\"points_per_weight\":0}").node("a").build());
    expect("invalid parameter (limits)", InvalidParameterException.class, "invalid_parameter",
        () -> Router.fromJson(RING3, "{\"no_such_limit\":1}"));
    expect("invalid json (params)", InvalidJsonException.class, "invalid_json", () -> Router.builder("ring").params("{"));
    expect("invalid spec (params not an object)", InvalidSpecException.class, "invalid_spec",
        () -> Router.builder("ring").params("[]"));
    expect("invalid spec (version above 2^53 - 1)", InvalidSpecException.class, "invalid_spec",
        () -> Router.builder("ring").version(1L << 53).node("a").build());
    expect("spec too large", SpecTooLargeException.class, "spec_too_large", () -> Router.fromJson(RING3, "{\"max_spec_bytes\":16}"));
    expect("invalid utf8 (spec bytes)", InvalidUtf8Exception.class, "invalid_utf8",
        () -> Router.fromJson(new byte[] {'{', (byte) 0xff, '}'}));
    expect("node out of range (address before a node)", NodeOutOfRangeException.class, "node_out_of_range",
        () -> Router.builder("spymemcached").address("10.0.0.1", 11211));
    expect("node out of range (name before a node)", NodeOutOfRangeException.class, "node_out_of_range",
        () -> Router.builder("spymemcached").name("x"));
    expect("node out of range (slots before a node)", NodeOutOfRangeException.class, "node_out_of_range",
        () -> Router.builder("slots").slots(0, 3));
    expect("invalid parameter (negative weight)", InvalidParameterException.class, "invalid_parameter",
        () -> Router.builder("ring").node("a", -1, null));
    expect("invalid parameter (port)", InvalidParameterException.class, "invalid_parameter",
        () -> Router.builder("spymemcached").node("a").address("h", 70000));

    try (Router r = Router.fromJson(RING3);
        Router jump = Router.builder("jump").node("a").node("b").build();
        Router u64 = Router.builder("guava").params("{\"key_hash\":\"u64be\"}").node("a").node("b").build()) {
      expect("replicas exceed nodes", ReplicasExceedNodesException.class, "replicas_exceed_nodes", () -> r.replicas("k", 4));
      expect("replicas unsupported", ReplicasUnsupportedException.class, "replicas_unsupported", () -> jump.replicas("k", 2));
      // The count is checked against the nodes before an array is sized from it (this used to
      // allocate new int[count] first: OutOfMemoryError under this test's 64 MiB heap).
      expect("replicas: count Integer.MAX_VALUE", ReplicasExceedNodesException.class, "replicas_exceed_nodes",
          () -> r.replicas("k", Integer.MAX_VALUE));
      expect("replicas: count 10^8", ReplicasExceedNodesException.class, "replicas_exceed_nodes",
          () -> r.replicas(new byte[] {1}, 100_000_000));
      expect("replicas unsupported, count Integer.MAX_VALUE", ReplicasUnsupportedException.class,
          "replicas_unsupported", () -> jump.replicas("k", Integer.MAX_VALUE));
      expect("replicas: negative count", InvalidParameterException.class, "invalid_parameter", () -> r.replicas("k", -1));
      expect("spread r = 0", InvalidParameterException.class, "invalid_parameter", () -> r.spread("k", 0, 1));
      expect("spread r > nodes", ReplicasExceedNodesException.class, "replicas_exceed_nodes", () -> r.spread("k", 4, 1));
      expect("spread unsupported", ReplicasUnsupportedException.class, "replicas_unsupported", () -> jump.spread("k", 2, 1));
      expect("invalid key (u64be, 3 bytes)", InvalidKeyException.class, "invalid_key", () -> u64.route(new byte[3]));
      expect("invalid key (batch)", InvalidKeyException.class, "invalid_key",
          () -> u64.routeBatch(new byte[][] {new byte[8], new byte[2]}));
      expect("invalid utf8 (lone high surrogate)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.route("\ud800"));
      expect("invalid utf8 (lone low surrogate)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.route("a\udc00"));
      expect("invalid utf8 (routeId)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.routeId("\ud800x"));
      expect("invalid utf8 (batch)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.routeBatch(List.of("ok", "\udbff")));
      expect("invalid utf8 (replicas)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.replicas("\ud800", 1));
      expect("invalid utf8 (slot)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.slot("\ud800"));
      expect("invalid utf8 (spread)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.spread("\ud800", 1, 0));
      expect("null key (bytes)", KeyrouteNullPointerException.class, "null_pointer", () -> r.route((byte[]) null));
      expect("null key (text)", KeyrouteNullPointerException.class, "null_pointer", () -> r.route((String) null));
      expect("null key in a batch", KeyrouteNullPointerException.class, "null_pointer",
          () -> r.routeBatch(new byte[][] {new byte[1], null}));
      expect("null spec", KeyrouteNullPointerException.class, "null_pointer", () -> Router.fromJson((String) null));
      expect("null router", KeyrouteNullPointerException.class, "null_pointer", () -> new SharedRouter(null));
      expect("node out of range", NodeOutOfRangeException.class, "node_out_of_range", () -> r.nodeId(3));
      expect("node out of range (negative)", NodeOutOfRangeException.class, "node_out_of_range", () -> r.nodeId(-1));
      // The two codes the API never provokes (it passes live handles and sizes its buffers).
      long p = r.handle.enter();
      try {
        expect("null pointer (raw kr_route, handle 0)", KeyrouteNullPointerException.class, "null_pointer",
            () -> KrLibrary.check(KrNative.kr_route(0, new byte[1], 1, new int[1])));
        try (com.sun.jna.Memory spans = new com.sun.jna.Memory(32)) {
          spans.clear(); // two empty keys: (NULL, 0)
          expect("buffer too small (raw kr_route_batch)", BufferTooSmallException.class, "buffer_too_small",
              () -> KrLibrary.check(KrNative.kr_route_batch(p, spans, 2, new int[1], 1)));
        }
      } finally {
        r.handle.leave();
      }
    }
    try (Router rdv = Router.fromJson("{\"algorithm\":\"rendezvous\",\"nodes\":[{\"id\":\"a\"}]}")) {
      expect("route hash unsupported (keyHash)", RouteHashUnsupportedException.class, "route_hash_unsupported",
          () -> rdv.keyHash("k"));
      expect("route hash unsupported (routeHash)", RouteHashUnsupportedException.class, "route_hash_unsupported",
          () -> rdv.routeHash(1));
      expect("route hash unsupported (routeHashBatch)", RouteHashUnsupportedException.class, "route_hash_unsupported",
          () -> rdv.routeHashBatch(new long[] {1, 2}));
    }
    List<String> none = new ArrayList<>();
    for (ErrorCode kind : ErrorCode.values()) {
      if (!raised.contains(kind.codeName())) {
        none.add(kind.codeName());
      }
    }
    // What is left cannot come out of the C ABI for a Java caller: the CLI's io and
    // invalid_argument, the type checks of dynamic languages, TOML (the C ABI reads JSON specs
    // only), allocation failure (test_oom.c covers it in C), a caught panic, and the live
    // views' and view sources' kinds (in the Rust bindings and the CLI only, so far).
    List<String> expectedNone =
        List.of("invalid_type", "io", "invalid_toml", "out_of_memory", "invalid_argument", "internal",
            "stale_version", "version_conflict", "fingerprint_mismatch", "no_view", "invalid_view",
            "unknown_source");
    check("raised through the API: every kind but " + expectedNone + " (not raised: " + none + ")",
        new HashSet<>(none).equals(new HashSet<>(expectedNone)));
  }

  // ------------------------------------------------------------------ Router and Builder

  static void router() throws Exception {
    try (Router r = Router.fromJson(RING3)) {
      check("nodeCount", r.nodeCount() == 3);
      check("nodeIds", r.nodeIds().equals(List.of("cache-a", "cache-b", "cache-c")));
      check("version", r.version() == 7);
      String canonical = r.canonicalJson();
      check("canonicalJson", canonical.startsWith("{") && canonical.contains("\"cache-b\"") && !canonical.contains(" "));
      try (Router again = Router.fromJson(canonical); Router fromBytes = Router.fromJson(b(RING3))) {
        check("fingerprint: canonical JSON and bytes give the same", again.fingerprint() == r.fingerprint()
            && fromBytes.fingerprint() == r.fingerprint());
      }
      try (Router limits = Router.fromJson(RING3, "{\"max_nodes\":3}")) {
        check("fromJson with limits", limits.fingerprint() == r.fingerprint());
      }
      try (Router b = Router.builder("ring").version(7).node("cache-a", 1, "z1").node("cache-b", 2, "z2").node("cache-c", 1, "z1").build()) {
        check("builder and JSON: same fingerprint", b.fingerprint() == r.fingerprint());
      }
      try (Router other = Router.builder("ring").node("cache-a").build()) {
        check("different specs: different fingerprints", other.fingerprint() != r.fingerprint());
      }
      check("toString", r.toString().startsWith("Router(3 nodes"));

      SplittableRandom rnd = new SplittableRandom(7);
      List<String> texts = new ArrayList<>();
      texts.add("");
      while (texts.size() < 2000) {
        StringBuilder sb = new StringBuilder();
        int n = rnd.nextInt(40);
        for (int i = 0; i < n; i++) {
          int kind = rnd.nextInt(4);
          int cp = kind == 0 ? 0x10000 + rnd.nextInt(0x100000) : kind == 1 ? 0x80 + rnd.nextInt(0x700) : 0x20 + rnd.nextInt(0x5f);
          sb.appendCodePoint(cp);
        }
        texts.add(sb.toString());
      }
      byte[][] bytes = new byte[texts.size()][];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = b(texts.get(i));
      }
      int[] batch = r.routeBatch(bytes);
      int[] batchText = r.routeBatch(texts);
      boolean same = true;
      for (int i = 0; i < bytes.length; i++) {
        int one = r.route(bytes[i]);
        same &= one == batch[i] && one == batchText[i] && r.route(texts.get(i)) == one
            && r.routeId(bytes[i]).equals(r.nodeId(one)) && r.routeId(texts.get(i)).equals(r.nodeId(one));
      }
      check("route(byte[]), route(String), routeId, routeBatch(byte[][]) and routeBatch(List) agree on 2,000 keys"
          + " (surrogate pairs included)", same);
      // Keys past the per-thread buffer (1024 bytes, 512 chars) take the array path.
      boolean longSame = true;
      for (int len : new int[] {511, 512, 513, 1023, 1024, 1025, 5000, 100_000}) {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < len) {
          sb.append((char) ('a' + rnd.nextInt(26)));
        }
        String t = sb.toString();
        String pair = t.substring(0, len - 1) + "\ud83d\ude00"; // a surrogate pair across the 512-char line
        for (String k : new String[] {t, pair}) {
          int one = r.route(b(k));
          longSame &= r.route(k) == one && r.routeBatch(new byte[][] {b(k)})[0] == one && r.routeId(k).equals(r.nodeId(one));
        }
      }
      check("long keys: route(byte[]), route(String), routeBatch, routeId agree around the buffer's size", longSame);
      expect("invalid utf8 (long key)", InvalidUtf8Exception.class, "invalid_utf8", () -> r.route("x".repeat(600) + "\ud800"));
      check("routeBatch: empty", r.routeBatch(new byte[0][]).length == 0 && r.routeBatch(List.of()).length == 0);
      check("route: the empty key", r.route(new byte[0]) == r.route(""));

      int[] rep = r.replicas("user:42", 3);
      check("replicas: owner first, distinct, zones first", rep[0] == r.route("user:42") && rep.length == 3
          && new HashSet<>(Arrays.asList(rep[0], rep[1], rep[2])).size() == 3
          && !r.nodeId(rep[0]).equals(r.nodeId(rep[1])));
      check("replicas(byte[]) = replicas(String)", Arrays.equals(r.replicas(b("user:42"), 2), r.replicas("user:42", 2)));
      check("replicas: zero", r.replicas("k", 0).length == 0);
      boolean spreadOk = true;
      Set<Integer> seen = new HashSet<>();
      for (long sel = 0; sel < 6; sel++) {
        int s = r.spread("user:42", 2, sel);
        spreadOk &= s == rep[(int) (sel % 2)] && s == r.spread(b("user:42"), 2, sel);
        seen.add(s);
      }
      check("spread: the selector-th of the first r replicas", spreadOk && seen.size() == 2 && r.spread("user:42", 1, 99) == rep[0]);
      check("slot: empty for a ring", !r.slot("foo").isPresent() && !r.slot(b("foo")).isPresent());

      Router dup = r.duplicate();
      check("duplicate: same router", dup.fingerprint() == r.fingerprint());
      dup.close();
      dup.close();
      check("close is idempotent; the original stays usable", dup.isClosed() && !r.isClosed() && r.nodeCount() == 3);
      expectState("a closed router refuses calls", () -> dup.route("k"));
      check("toString of a closed router", dup.toString().equals("Router(closed)"));
    }
    try (Router redis = Router.builder("redis-cluster").node("a").slots(0, 8191).node("b").slots(8192, 16383).build()) {
      check("slot: Redis Cluster's slot of foo is 12182", redis.slot("foo").getAsInt() == 12182
          && redis.slot(b("{user}.x")).getAsInt() == redis.slot("user").getAsInt() && redis.route("foo") == 1);
    }
    Router.Builder spy = Router.builder("spymemcached");
    {
      spy.params("{\"format\":\"spymemcached\",\"hash\":\"ketama\",\"weighted\":false}");
      spy.node("10.0.0.1:11211").address("10.0.0.1", 11211).name("/10.0.0.1:11211");
      try (Router one = spy.build()) {
        spy.node("10.0.0.2:11211").address("10.0.0.2", 11211).name("/10.0.0.2:11211");
        try (Router two = spy.build()) {
          check("builder: keeps its nodes, builds again", one.nodeCount() == 1 && two.nodeCount() == 2
              && one.canonicalJson().contains("/10.0.0.1:11211") && two.canonicalJson().contains("10.0.0.2"));
        }
      }
      spy.close();
      expectState("a closed builder refuses calls", () -> spy.node("x"));
    }
    check("Keyroute.version() is the workspace's", Keyroute.version().equals(System.getProperty("keyroute.expect.version")));
    check("Keyroute.librarySource()", !Keyroute.librarySource().isEmpty());
  }

  // ------------------------------------------------------------------ SharedRouter

  static void shared() throws Exception {
    try (Router a = Router.fromJson("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"version\":1}");
        Router b = Router.fromJson("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}],\"version\":2}")) {
      SharedRouter shared = new SharedRouter(a);
      try (Router view = shared.load()) {
        check("load gives the initial router", view.fingerprint() == a.fingerprint());
        shared.store(b);
        check("a view keeps its router after a store", view.fingerprint() == a.fingerprint());
      }
      try (Router view = shared.load()) {
        check("store: later loads get the new router", view.fingerprint() == b.fingerprint()
            && shared.route("user:1") == b.route("user:1") && shared.route(b("user:1")) == b.route("user:1")
            && shared.routeId("user:1").equals(b.routeId("user:1")));
      }
      // 4 readers load and route while a writer swaps: every answer comes from one of the two
      // routers, and the one whose fingerprint the view has.
      int keys = 64;
      int[][] want = new int[2][keys];
      for (int k = 0; k < keys; k++) {
        want[0][k] = a.route("key-" + k);
        want[1][k] = b.route("key-" + k);
      }
      AtomicInteger bad = new AtomicInteger();
      AtomicInteger loads = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(4);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Thread th = new Thread(() -> {
          try {
            for (int i = 0; i < 20_000; i++) {
              try (Router view = shared.load()) {
                long fp = view.fingerprint();
                int which = fp == a.fingerprint() ? 0 : fp == b.fingerprint() ? 1 : -1;
                int k = i % keys;
                if (which < 0 || view.route("key-" + k) != want[which][k] || view.version() != which + 1) {
                  bad.incrementAndGet();
                }
                loads.incrementAndGet();
              }
            }
          } catch (RuntimeException e) {
            bad.incrementAndGet();
          } finally {
            done.countDown();
          }
        });
        threads.add(th);
        th.start();
      }
      int swaps = 0;
      while (done.getCount() > 0) {
        shared.store(swaps % 2 == 0 ? a : b);
        swaps++;
      }
      for (Thread th : threads) {
        th.join();
      }
      check("swaps while 4 threads load and route: " + loads.get() + " consistent views, " + swaps + " swaps",
          bad.get() == 0 && loads.get() == 80_000 && swaps > 0);
      Router kept = shared.load();
      shared.close();
      shared.close();
      check("a loaded router outlives its shared router", kept.nodeCount() >= 2);
      kept.close();
      expectState("a closed shared router refuses calls", shared::load);
    }
  }

  // ------------------------------------------------------------------ BoundedLoad

  static void bounded() throws Exception {
    try (Router r = Router.builder("ring").node("a").node("b").node("c").node("d").build();
        Router jump = Router.builder("jump").node("a").node("b").build()) {
      expect("bounded: c out of range", InvalidParameterException.class, "invalid_parameter", () -> new BoundedLoad(r, 0.5));
      expect("bounded: no replica order", ReplicasUnsupportedException.class, "replicas_unsupported",
          () -> new BoundedLoad(jump, 1.25));
      BoundedLoad bl = new BoundedLoad(r, BoundedLoad.DEFAULT_BALANCE_FACTOR);
      BoundedLoad.Placement pick = bl.pick("user:42");
      check("pick: home when empty, takes nothing", pick.isHome() && pick.node() == r.route("user:42") && bl.total() == 0
          && bl.pick(b("user:42")).node() == pick.node());
      List<BoundedLoad.Lease> leases = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        leases.add(i % 2 == 0 ? bl.acquire("hot") : bl.acquire(b("hot")));
      }
      int max = 0;
      for (int n = 0; n < 4; n++) {
        max = Math.max(max, bl.load(n));
      }
      check("acquire: one hot key spills past its owner, no node above ceil(1.25 * 40 / 4) = 13",
          bl.total() == 40 && max <= 13 && leases.get(0).isHome() && leases.stream().anyMatch(l -> !l.isHome())
              && bl.load(leases.get(0).node()) == max);
      expect("bounded: load of a node out of range", NodeOutOfRangeException.class, "node_out_of_range", () -> bl.load(4));
      expect("bounded: invalid utf8", InvalidUtf8Exception.class, "invalid_utf8", () -> bl.acquire("\ud800"));
      BoundedLoad.Lease first = leases.get(0);
      first.close();
      first.close();
      check("a lease gives its slot back once", bl.total() == 39);
      for (BoundedLoad.Lease l : leases) {
        l.close();
      }
      check("every slot given back", bl.total() == 0);
      // Many threads acquire and release.
      AtomicInteger errors = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        final int id = t;
        Thread th = new Thread(() -> {
          try {
            for (int i = 0; i < 20_000; i++) {
              try (BoundedLoad.Lease l = bl.acquire("k" + (i % 50) + ":" + id)) {
                if (l.node() < 0 || l.node() > 3) {
                  errors.incrementAndGet();
                }
              }
            }
          } catch (RuntimeException e) {
            errors.incrementAndGet();
          }
        });
        threads.add(th);
        th.start();
      }
      for (Thread th : threads) {
        th.join();
      }
      check("4 threads x 20,000 acquire/release: the counts return to 0", errors.get() == 0 && bl.total() == 0);
      BoundedLoad.Lease held = bl.acquire("x");
      bl.close();
      held.close(); // nothing to give back any more: no error, no crash
      check("a lease closed after its bounded load is a no-op", true);
      expectState("a closed bounded load refuses calls", () -> bl.pick("x"));
    }
  }

  // ------------------------------------------------------------------ lifetimes

  static long rssKb() throws Exception {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  static final String LIFETIME_SPEC = "{\"algorithm\":\"ring\",\"params\":{\"points_per_weight\":10},"
      + "\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}";

  /** Every kind of handle, opened and closed, {@code rounds} times. */
  static void openAndClose(int rounds) {
    for (int i = 0; i < rounds; i++) {
      try (Router r = Router.fromJson(LIFETIME_SPEC); Router d = r.duplicate(); SharedRouter s = new SharedRouter(d);
          BoundedLoad bl = new BoundedLoad(r, 1.5); Router.Builder b = Router.builder("ring").node("a");
          Transition t = new Transition(r, d, 0.0)) {
        s.route("k");
        bl.acquire("k").close();
        b.build().close();
        t.setProgress(0.5);
        t.routeWithFallback("k");
        if (i % 10 == 0) { // a diff of these routers is small: valgrind checks its memory in C
          r.diff(d);
          r.ownership();
        }
      }
    }
  }

  static void lifetimes() throws Exception {
    // Run with a fixed, pre-touched heap (-Xms64m -Xmx64m -XX:+AlwaysPreTouch) so that VmRSS
    // moves with native memory only. A router of 4 nodes x 10 points holds about 2 KB natively
    // (measured: 20,000 kept alive add 44 MB), so 15,000 leaked ones would add about 33 MB.
    //
    // The JVM's own native memory grows once while it compiles the loop (measured here: +13 MB
    // over the first 15,000 rounds, then +0.3, +0.1 and +0.03 MB over the next three; CI's loaded
    // machine once saw +25 MB in the first). So the loop runs once unmeasured, then once
    // measured: a leak grows every pass alike, the compiler's memory only in the first.
    String spec = LIFETIME_SPEC;
    int rounds = 15_000;
    openAndClose(rounds);
    System.gc();
    Thread.sleep(200);
    long before = rssKb();
    openAndClose(rounds);
    long closed = rssKb();
    for (int i = 0; i < rounds; i++) {
      Router r = Router.fromJson(spec); // never closed: the Cleaner releases it
      r.route("k");
      if (i % 1_000 == 0) {
        System.gc();
      }
    }
    System.gc();
    Thread.sleep(500);
    long cleaned = rssKb();
    System.out.printf("VmRSS: %d KB after warm-up, %+d KB after %d closed routers (with duplicates, shared routers, bounded"
        + " loads, builders, transitions, diffs), %+d KB more after %d left to the Cleaner%n", before, closed - before, rounds, cleaned - closed, rounds);
    check("no leak: routers, shared routers, bounded loads, builders, transitions and diffs closed",
        closed - before < 12 * 1024);
    check("no leak: routers left to the Cleaner", cleaned - closed < 12 * 1024);

    // A close racing with calls on other threads: each call either answers or throws
    // IllegalStateException; the router is freed once, after the last call inside returns.
    AtomicInteger other = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    for (int round = 0; round < 50; round++) {
      Router r = Router.fromJson(spec);
      AtomicReference<Router> ref = new AtomicReference<>(r);
      CountDownLatch started = new CountDownLatch(3);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        Thread th = new Thread(() -> {
          started.countDown();
          for (int i = 0; i < 2_000; i++) {
            try {
              if (ref.get().route("key-" + i) < 4) {
                answered.incrementAndGet();
              }
            } catch (IllegalStateException e) {
              refused.incrementAndGet();
            } catch (RuntimeException e) {
              other.incrementAndGet();
            }
          }
        });
        threads.add(th);
        th.start();
      }
      started.await();
      r.close();
      for (Thread th : threads) {
        th.join();
      }
    }
    check("close racing with 3 routing threads x 50 rounds: " + answered.get() + " answered, " + refused.get() + " refused",
        other.get() == 0 && answered.get() + refused.get() == 50 * 3 * 2_000 && refused.get() > 0);
  }


  // ------------------------------------------------------------------ transitions, hashes, analysis
  static final String RING_ABC = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}";
  static final String RING_ABCD =
      "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}";

  static void transitions() throws Exception {
    try (Router a = Router.fromJson(RING_ABC); Router b = Router.fromJson(RING_ABCD)) {
      Transition t = new Transition(a, b, 0.0);
      check("transition nodes: A's, then B's new ones", t.nodeIds().equals(List.of("a", "b", "c", "d")));
      check("transition progress 0", t.progress() == 0.0);
      boolean likeA = true;
      boolean likeB = true;
      boolean fallbacks = true;
      int cutHalf = 0;
      int cutEnd = 0;
      for (int i = 0; i < 1000; i++) {
        String k = "key-" + i;
        Transition.Placement p = t.routeWithFallback(k);
        likeA &= t.route(k).equals(a.routeId(k)) && p.owner().equals(a.routeId(k)) && p.previous() == null
            && !t.hasCutOver(k) && t.route(k.getBytes(StandardCharsets.UTF_8)).equals(t.route(k));
      }
      t.setProgress(0.5);
      check("transition progress 0.5", t.progress() == 0.5);
      for (int i = 0; i < 1000; i++) {
        String k = "key-" + i;
        Transition.Placement p = t.routeWithFallback(k);
        if (p.previous() != null) {
          cutHalf++;
          fallbacks &= p.owner().equals(b.routeId(k)) && p.previous().equals(a.routeId(k)) && t.hasCutOver(k);
        }
      }
      t.setProgress(1.0);
      for (int i = 0; i < 1000; i++) {
        String k = "key-" + i;
        Transition.Placement p = t.routeWithFallback(k);
        likeB &= p.owner().equals(b.routeId(k)) && t.nodeId(t.routeIndex(k)).equals(p.owner());
        cutEnd += p.previous() != null ? 1 : 0;
      }
      check("transition at 0 routes as A, with no fallback", likeA);
      check("transition at 1 routes as B", likeB);
      check("transition fallbacks name B's and A's owners", fallbacks);
      check("transition moves about a quarter, half of it by 0.5 (" + cutHalf + ", " + cutEnd + ")",
          cutEnd > 150 && cutEnd < 350 && cutHalf > cutEnd / 4 && cutHalf < cutEnd * 3 / 4);
      expect("transition progress above 1", InvalidParameterException.class, "invalid_parameter", () -> t.setProgress(1.5));
      expect("transition progress NaN", InvalidParameterException.class, "invalid_parameter", () -> t.setProgress(Double.NaN));
      check("a refused progress keeps the transition's", t.progress() == 1.0);
      expect("transition node out of range", NodeOutOfRangeException.class, "node_out_of_range", () -> t.nodeId(4));
      expect("transition null key", KeyrouteNullPointerException.class, "null_pointer", () -> t.route((String) null));
      expect("new transition at -0.5", InvalidParameterException.class, "invalid_parameter",
          () -> new Transition(a, b, -0.5).close());
      expect("new transition from null", KeyrouteNullPointerException.class, "null_pointer",
          () -> new Transition(null, b, 0).close());
      t.close();
      t.close(); // idempotent
      check("a closed transition says so", t.isClosed() && t.toString().contains("closed"));
      expectState("a closed transition refuses calls", () -> t.route("k"));
    }
  }

  static void hashesAndAnalysis() throws Exception {
    try (Router a = Router.fromJson(RING_ABC); Router b = Router.fromJson(RING_ABCD);
        Router jump = Router.fromJson("{\"algorithm\":\"jump\",\"params\":{\"key_hash\":\"u64be\"},\"nodes\":"
            + "[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}")) {
      long[] hashes = new long[200];
      boolean agree = true;
      for (int i = 0; i < hashes.length; i++) {
        String k = "user:" + i;
        hashes[i] = a.keyHash(k);
        agree &= a.routeHash(hashes[i]) == a.route(k) && a.keyHash(k.getBytes(StandardCharsets.UTF_8)) == hashes[i];
      }
      int[] batch = a.routeHashBatch(hashes);
      for (int i = 0; i < hashes.length; i++) {
        agree &= batch[i] == a.route("user:" + i);
      }
      check("routing a key's hash routes the key, one at a time and in a batch", agree);
      byte[] two = {0, 0, 0, 0, 0, 0, 0, 2};
      check("jump over u64be keys hashes a key to itself", jump.keyHash(two) == 2 && jump.routeHash(2) == jump.route(two));
      expect("key hash of a refused key", InvalidKeyException.class, "invalid_key", () -> jump.keyHash("short"));
      check("an empty hash batch", a.routeHashBatch(new long[0]).length == 0);
      expect("null hash batch", KeyrouteNullPointerException.class, "null_pointer", () -> a.routeHashBatch(null));

      Ownership own = b.ownership();
      double sum = 0;
      for (double share : own.shares()) {
        sum += share;
      }
      check("ownership shares sum to 1 (" + sum + ")", Math.abs(sum - 1) < 1e-9);
      check("ownership of a ring is exact", own.method().equals("exact") && own.sampleKeys() == 0);
      check("ownership by id", own.nodeIds().equals(List.of("a", "b", "c", "d")) && own.share("d") == own.shares()[3]
          && own.share("nope") == 0);
      check("ownership balance", own.maxOverMean() >= 1 && own.minOverMean() <= 1 && own.cv() >= 0);
      try (Router probe = Router.fromJson("{\"algorithm\":\"multi-probe\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}")) {
        Ownership sampled = probe.ownership();
        check("ownership of multi-probe is sampled", sampled.method().equals("sampled") && sampled.sampleKeys() > 0);
      }
      check("ownership of jump is expected", jump.ownership().method().equals("expected"));

      Diff d = a.diff(b);
      check("diff method exact", d.method().equals("exact") && d.sampleKeys() == 0);
      check("diff ideal 1/4", Math.abs(d.idealMoved() - 0.25) < 1e-12);
      check("diff moves about 1/4 (" + d.moved() + ")", Math.abs(d.moved() - 0.25) < 0.05);
      double flowSum = 0;
      double onto = 0;
      boolean onlyToD = true;
      for (Diff.Flow f : d.flows()) {
        flowSum += f.share();
        if (f.moved()) {
          onto += f.share();
          onlyToD &= f.to().equals("d") && f.toIndex() == 3;
        } else {
          onlyToD &= f.from().equals(f.to());
        }
      }
      check("diff flows sum to 1", Math.abs(flowSum - 1) < 1e-9);
      check("diff moved flows all go to d and add up to moved", onlyToD && Math.abs(onto - d.moved()) < 1e-9);
      List<String> ids = new ArrayList<>();
      boolean rows = true;
      for (Diff.NodeChange n : d.nodes()) {
        ids.add(n.id());
        rows &= Math.abs(n.after() - n.before() - (n.gained() - n.lost())) < 1e-9;
      }
      Diff.NodeChange nd = d.nodes().get(3);
      check("diff nodes: A's, then d", ids.equals(List.of("a", "b", "c", "d")) && rows);
      check("diff: d is new and gains what moves",
          nd.fromIndex() == -1 && nd.toIndex() == 3 && nd.before() == 0 && Math.abs(nd.gained() - d.moved()) < 1e-9);
      boolean arcs = !d.movedArcs().isEmpty();
      for (Diff.MovedArc m : d.movedArcs()) {
        arcs &= m.to().equals("d") && Long.compareUnsigned(m.start(), m.end()) <= 0;
      }
      check("diff moved arcs all go to d", arcs);
      Diff none = a.diff(a);
      check("a diff with itself moves nothing", none.moved() == 0 && none.movedArcs().isEmpty() && none.nodes().size() == 3);
      expect("diff with null", KeyrouteNullPointerException.class, "null_pointer", () -> a.diff(null));

      Capabilities ring = a.capabilities();
      check("ring capabilities", ring.weights().equals("honoured") && ring.replicas() && ring.routeHash()
          && !ring.slots().isPresent() && ring.analysis().equals("exact") && ring.pointsPerWeight().isPresent()
          && !ring.rebalance() && ring.toString().contains("honoured"));
      Capabilities j = jump.capabilities();
      check("jump capabilities", j.weights().equals("refused") && !j.replicas() && j.routeHash()
          && j.analysis().equals("expected") && j.sampleKeys() == 0);
      try (Router slots = Router.fromJson("{\"algorithm\":\"slots\",\"params\":{\"count\":1024},\"nodes\":"
          + "[{\"id\":\"a\"},{\"id\":\"b\"}]}")) {
        Capabilities s = slots.capabilities();
        check("slots capabilities", s.slots().equals(java.util.OptionalInt.of(1024)) && !s.routeHash() && s.rebalance()
            && s.analysis().equals(slots.ownership().method()));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    System.out.println("keyroute " + Keyroute.version() + " from " + Keyroute.librarySource());
    errorTable();
    errorsThroughTheApi();
    router();
    shared();
    bounded();
    lifetimes();
    transitions();
    hashesAndAnalysis();
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
