// The assembly's own tests, with a small runner of their own (no test framework: Debian's NUnit
// is 2.6): every public method, errors by kind (each raised by a real call, as the subclass of
// its kind with its stable code), the dispose discipline (ObjectDisposedException after Dispose,
// finalizers freeing dropped handles) and concurrent use (threads routing while one disposes,
// threads routing a transition while one moves its progress).
//
// Usage: mono KeyrouteTests.exe [EXPECTED_VERSION]. The internal handle count and the exception
// factory are read by reflection. Closes with "N passed, M failed".

using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using Keyroute;

static class Tests
{
    const string Ring = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"cache-a\",\"zone\":\"eu-1a\"},{\"id\":\"cache-b\",\"zone\":\"eu-1b\",\"weight\":2},{\"id\":\"cache-c\",\"zone\":\"eu-1a\"}]}";
    const string Ring4 = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"cache-a\"},{\"id\":\"cache-b\"},{\"id\":\"cache-c\"},{\"id\":\"cache-d\"}]}";
    const string Jump = "{\"algorithm\":\"jump\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}";
    const string Slots = "{\"algorithm\":\"redis-cluster\",\"nodes\":[{\"id\":\"a\",\"slots\":[[0,5460]]},{\"id\":\"b\",\"slots\":[[5461,10922]]},{\"id\":\"c\",\"slots\":[[10923,16383]]}]}";

    static string expectVersion;
    static int passed, failed;

    static void Check(bool ok, string what)
    {
        if (!ok)
            throw new Exception("check failed: " + what);
    }

    /// <summary>The exception <c>action</c> throws, which must be a <typeparamref name="T"/>.</summary>
    static T Throws<T>(Action action, string what) where T : Exception
    {
        try
        {
            action();
        }
        catch (T e)
        {
            return e;
        }
        catch (Exception e)
        {
            throw new Exception(what + ": expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message);
        }
        throw new Exception(what + ": expected " + typeof(T).Name + ", nothing was thrown");
    }

    /// <summary>A failure of kind <c>code</c>, raised as <typeparamref name="T"/> with the code's name and category.</summary>
    static void ThrowsKind<T>(ErrorCode code, Action action, string what) where T : KeyrouteException
    {
        T e = Throws<T>(action, what);
        Check(e.Code == code, what + ": code " + e.Code + ", expected " + code);
        Check(e.CodeName == ErrorCodes.Name(code) && e.Category == ErrorCodes.Category(code), what + ": name and category");
        Check(e.Message.StartsWith("keyroute: " + e.CodeName + " (" + (uint)code + ")"), what + ": message " + e.Message);
        Check(e.Detail.Length > 0, what + ": the library's message is empty");
    }

    static byte[] B(string s) { return Encoding.UTF8.GetBytes(s); }

    static long Live { get { return (long)typeof(Router).Assembly.GetType("Keyroute.Native").GetField("LiveHandles", BindingFlags.Static | BindingFlags.NonPublic).GetValue(null); } }

    // ------------------------------------------------------------------ the library and the table

    static void Version()
    {
        Check(Library.Version == Library.AssemblyVersion, "library " + Library.Version + ", assembly " + Library.AssemblyVersion);
        if (expectVersion != null)
            Check(Library.Version == expectVersion, "version " + Library.Version + ", expected " + expectVersion);
        Check(Library.Compatible(), "Compatible()");
        Check(Library.StatusName(0) == "ok" && Library.StatusName(12345) == null, "StatusName of 0 and of no code");
    }

    static void CodesMatchTheLibrary()
    {
        ErrorCode[] all = ErrorCodes.All;
        Check(all.Length >= 30, "the table has " + all.Length + " codes");
        var create = typeof(KeyrouteException).GetMethod("Create", BindingFlags.Static | BindingFlags.NonPublic);
        var seen = new HashSet<uint>();
        foreach (ErrorCode c in all)
        {
            Check(seen.Add((uint)c), "code " + c + " twice");
            Check(Library.StatusName((uint)c) == ErrorCodes.Name(c), c + ": the library names it " + Library.StatusName((uint)c));
            Check(ErrorCodes.Description(c).Length > 0 && ErrorCodes.Category(c).Length > 0, c + ": description and category");
            var e = (KeyrouteException)create.Invoke(null, new object[] { c, "detail" });
            string cls = e.GetType().Name;
            Check(cls == c + "Exception" || cls == "Keyroute" + c + "Exception", c + " is raised as " + cls);
            Check(e.Code == c && e.Detail == "detail", c + ": code and detail");
        }
        Check(ErrorCodes.Name((ErrorCode)12345) == "unknown", "a number that is no code");
    }

    // ------------------------------------------------------------------ errors by kind

    static void ErrorKinds()
    {
        ThrowsKind<InvalidJsonException>(ErrorCode.InvalidJson, () => new Router("{"), "invalid JSON");
        ThrowsKind<InvalidSpecException>(ErrorCode.InvalidSpec, () => new Router("{\"algorithm\":\"ring\"}"), "no nodes field");
        ThrowsKind<UnknownAlgorithmException>(ErrorCode.UnknownAlgorithm, () => new Router("{\"algorithm\":\"nope\",\"nodes\":[{\"id\":\"a\"}]}"), "unknown algorithm");
        ThrowsKind<EmptyTopologyException>(ErrorCode.EmptyTopology, () => new Router("{\"algorithm\":\"ring\",\"nodes\":[]}"), "no nodes");
        ThrowsKind<DuplicateNodeIdException>(ErrorCode.DuplicateNodeId, () => new Router("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"a\"}]}"), "duplicate id");
        ThrowsKind<ZeroTotalWeightException>(ErrorCode.ZeroTotalWeight, () => new Router("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\",\"weight\":0}]}"), "zero weight");
        ThrowsKind<InvalidNodeIdException>(ErrorCode.InvalidNodeId, () => new Router("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"\"}]}"), "empty id");
        ThrowsKind<TooManyNodesException>(ErrorCode.TooManyNodes, () => Router.FromJson(B(Ring), "{\"max_nodes\":2}"), "max_nodes");
        ThrowsKind<SpecTooLargeException>(ErrorCode.SpecTooLarge, () => Router.FromJson(B(Ring), "{\"max_spec_bytes\":16}"), "max_spec_bytes");
        ThrowsKind<InvalidUtf8Exception>(ErrorCode.InvalidUtf8, () => Router.FromJson(new byte[] { 0xff, 0xfe }), "a spec that is not UTF-8");
        using (var r = new Router(Ring))
        {
            ThrowsKind<ReplicasExceedNodesException>(ErrorCode.ReplicasExceedNodes, () => r.Replicas("k", 4), "4 replicas of 3 nodes");
            ThrowsKind<InvalidUtf8Exception>(ErrorCode.InvalidUtf8, () => r.Route("a\ud800b"), "a lone surrogate");
            ThrowsKind<InvalidUtf8Exception>(ErrorCode.InvalidUtf8, () => r.RouteBatch(new[] { "ok", "\udc00" }), "a lone surrogate in a batch");
            ThrowsKind<InvalidUtf8Exception>(ErrorCode.InvalidUtf8, () => r.RouteBatch(new[] { "ok", "x\ud800" }), "a high surrogate ending a batch key");
            ThrowsKind<InvalidUtf8Exception>(ErrorCode.InvalidUtf8, () => r.RouteBatch(new[] { "\ud800x" }), "a high surrogate before a non-surrogate");
            ThrowsKind<InvalidUtf8Exception>(ErrorCode.InvalidUtf8, () => r.Replicas("\ud800", 1), "a lone surrogate for replicas");
            ThrowsKind<BufferTooSmallException>(ErrorCode.BufferTooSmall, () => r.RouteBatch(new[] { "a", "b" }, new int[1]), "a short result buffer");
            ThrowsKind<InvalidParameterException>(ErrorCode.InvalidParameter, () => r.Replicas("k", -1), "a negative count");
            using (var j = new Router(Jump))
            {
                ThrowsKind<ReplicasUnsupportedException>(ErrorCode.ReplicasUnsupported, () => j.Replicas("k", 2), "replicas of jump");
                ThrowsKind<ReplicasUnsupportedException>(ErrorCode.ReplicasUnsupported, () => j.Spread("k", 2, 0), "spread of jump");
                Check(!j.Capabilities.Replicas, "jump has no replica order");
                ThrowsKind<InvalidParameterException>(ErrorCode.InvalidParameter, () => new Transition(r, j, 1.5), "progress 1.5");
            }
        }
        // Caught by the base class too, and by the category the kind belongs to.
        var any = Throws<KeyrouteException>(() => new Router("[]"), "a spec that is an array");
        Check(any is InvalidSpecException && any.Category == "value", "base class catch: " + any.GetType().Name);
        Throws<ArgumentNullException>(() => new Router(null), "a null spec");
        Throws<ArgumentNullException>(() => { using (var r = new Router(Ring)) r.Route((byte[])null); }, "a null key");
    }

    // ------------------------------------------------------------------ routing

    static void Routes()
    {
        using (var r = new Router(Ring))
        {
            Check(r.NodeCount == 3 && r.NodeId(1) == "cache-b" && r.NodeIds.Count == 3, "node ids");
            Check(r.RouteId("user:42") == "cache-a", "user:42 routes to " + r.RouteId("user:42"));
            var keys = new List<string>();
            var bytes = new List<byte[]>();
            for (int i = 0; i < 1000; i++)
            {
                // ASCII, and 2-, 3- and 4-byte UTF-8 (a surrogate pair) for the batch path's encoder.
                keys.Add("key:" + i + (i % 7 == 0 ? "é" : i % 7 == 1 ? "鍵" : i % 7 == 2 ? "\ud83d\udd11" : ""));
                bytes.Add(B(keys[i]));
            }
            keys.Add("");
            bytes.Add(new byte[0]);
            int[] batch = r.RouteBatch(keys);
            int[] batchBytes = r.RouteBatch(bytes);
            var into = new int[keys.Count + 5];
            r.RouteBatch(keys, into);
            for (int i = 0; i < keys.Count; i++)
            {
                int one = r.Route(bytes[i]);
                Check(r.Route(keys[i]) == one, "Route(string) and Route(byte[]) of " + keys[i]);
                Check(batch[i] == one && batchBytes[i] == one && into[i] == one, "RouteBatch of " + keys[i]);
                Check(r.RouteHash(r.KeyHash(bytes[i])) == one, "RouteHash of KeyHash of " + keys[i]);
                int[] rep = r.Replicas(keys[i], 2);
                Check(rep[0] == one && rep[1] != one, "replicas of " + keys[i]);
                Check(r.NodeId(rep[0]).Length > 0 && r.Replicas(bytes[i], 3).Length == 3, "three replicas");
            }
            Check(r.RouteBatch(new string[0]).Length == 0, "an empty batch");
            Capabilities caps = r.Capabilities;
            Check(caps.Weights == "honoured" && caps.Replicas && caps.RouteHash && caps.PointsPerWeight == 160 && caps.Slots == 0
                && caps.Analysis.Length > 0, "ring capabilities");
            ulong selector = Router.ClientSelector("client-7");
            Check(selector == Router.ClientSelector("client-7") && selector != Router.ClientSelector("client-8"), "client selectors");
            for (int i = 0; i < 200; i++)
            {
                string k = "hot:" + i;
                Check(r.Spread(k, 1, selector) == r.Route(k), "spread over one replica is the owner");
                int[] two = r.Replicas(k, 2);
                int spread = r.Spread(B(k), 2, (ulong)i);
                Check(spread == two[i % 2], "spread " + spread + " is replica " + (i % 2) + " of " + k);
            }
            ThrowsKind<InvalidParameterException>(ErrorCode.InvalidParameter, () => r.Spread("k", 0, 1), "spread over 0 replicas");
            Check(r.Slot("k") == null, "a ring has no slots");
            Check(r.Fingerprint != 0 && r.SpecVersion == 0, "fingerprint and version");
            Check(r.CanonicalJson.StartsWith("{") && r.CanonicalJson.Contains("cache-b"), "canonical JSON " + r.CanonicalJson);
            using (var again = new Router(r.CanonicalJson))
                Check(again.Fingerprint == r.Fingerprint, "the canonical spec has the same fingerprint");
            Check(r.ToString() == "keyroute.Router(3 nodes)", r.ToString());
        }
        using (var s = new Router(Slots))
        {
            Check(s.Capabilities.Slots == 16384 && !s.Capabilities.RouteHash && s.Capabilities.PointsPerWeight == 0, "slot table capabilities");
            ThrowsKind<RouteHashUnsupportedException>(ErrorCode.RouteHashUnsupported, () => s.KeyHash(B("k")), "key hash of a slot table");
            ThrowsKind<RouteHashUnsupportedException>(ErrorCode.RouteHashUnsupported, () => s.RouteHash(1), "route hash of a slot table");
            int? slot = s.Slot("user:{42}:name");
            Check(slot.HasValue && slot == s.Slot("{42}") && slot >= 0 && slot < 16384, "redis-cluster slot " + slot);
        }
    }

    static void Transitions()
    {
        var from = new Router(Ring);
        var to = new Router(Ring4);
        var t = new Transition(from, to, 0);
        // The transition holds its own references: the routers may go first.
        from.Dispose();
        to.Dispose();
        using (var a = new Router(Ring))
        using (var b = new Router(Ring4))
        using (t)
        {
            Check(t.NodeCount == 4 && new List<string>(t.NodeIds).Contains("cache-d"), "transition nodes");
            int moved = 0;
            for (int i = 0; i < 2000; i++)
            {
                string k = "key:" + i;
                Check(t.NodeId(t.Route(k)) == a.RouteId(k), "progress 0 routes like the first router");
                Check(!t.HasCutOver(k) && !t.RouteWithFallback(k).HasPrevious, "nothing cut over at 0");
            }
            t.Progress = 1;
            Check(t.Progress == 1, "progress " + t.Progress);
            for (int i = 0; i < 2000; i++)
            {
                string k = "key:" + i;
                Check(t.NodeId(t.Route(B(k))) == b.RouteId(k), "progress 1 routes like the second router");
                Placement p = t.RouteWithFallback(k);
                bool changed = a.RouteId(k) != b.RouteId(k);
                Check(p.HasPrevious == changed && (!changed || t.HasCutOver(k)), "cut over at 1 where the owner changed");
                Check(t.NodeId(p.Previous) == a.RouteId(k) && p.Owner == t.Route(k), "placement of " + k);
                if (changed)
                    moved++;
            }
            Check(moved > 0 && moved < 2000, moved + " keys moved");
            ThrowsKind<InvalidParameterException>(ErrorCode.InvalidParameter, () => t.Progress = -0.5, "progress -0.5");
        }
    }

    // ------------------------------------------------------------------ lifetimes

    static void DisposeDiscipline()
    {
        long before = Live;
        var r = new Router(Ring);
        var t = new Transition(r, r, 0.5);
        Check(Live == before + 2, "two handles live");
        Check(!r.IsDisposed, "not disposed yet");
        r.Dispose();
        r.Dispose(); // idempotent
        Check(r.IsDisposed && r.NodeId(0) == "cache-a" && r.ToString().Contains("disposed"), "a disposed router keeps its ids");
        var calls = new Dictionary<string, Action>
        {
            { "Route(string)", () => r.Route("k") },
            { "Route(byte[])", () => r.Route(B("k")) },
            { "RouteId", () => r.RouteId("k") },
            { "RouteBatch", () => r.RouteBatch(new[] { "k" }) },
            { "RouteBatch (empty)", () => r.RouteBatch(new string[0]) },
            { "RouteBatch(byte[][])", () => r.RouteBatch(new List<byte[]> { B("k") }) },
            { "Replicas", () => r.Replicas("k", 1) },
            { "Slot", () => r.Slot("k") },
            { "Spread", () => r.Spread("k", 1, 0) },
            { "Capabilities", () => { Capabilities c = r.Capabilities; Check(c == null, "unreachable"); } },
            { "KeyHash", () => r.KeyHash(B("k")) },
            { "RouteHash", () => r.RouteHash(1) },
            { "Fingerprint", () => { ulong f = r.Fingerprint; Check(f == 0, "unreachable"); } },
            { "SpecVersion", () => { ulong v = r.SpecVersion; Check(v == 1, "unreachable"); } },
            { "CanonicalJson", () => { string j = r.CanonicalJson; Check(j == null, "unreachable"); } },
            { "new Transition", () => new Transition(r, r, 0) },
        };
        foreach (var c in calls)
            Throws<ObjectDisposedException>(c.Value, c.Key + " after Dispose");
        // The transition holds its own reference to the router.
        Check(t.NodeId(t.Route("k")).Length > 0, "a transition outlives its router");
        t.Dispose();
        Throws<ObjectDisposedException>(() => t.Route("k"), "Transition.Route after Dispose");
        Throws<ObjectDisposedException>(() => { double p = t.Progress; Check(p < 0, "unreachable"); }, "Transition.Progress after Dispose");
        Throws<ObjectDisposedException>(() => t.Progress = 0.1, "setting Progress after Dispose");
        Throws<ObjectDisposedException>(() => t.HasCutOver("k"), "HasCutOver after Dispose");
        Throws<ObjectDisposedException>(() => t.RouteWithFallback("k"), "RouteWithFallback after Dispose");
        Check(Live == before, "every handle released: " + (Live - before) + " left");
        // A failed build leaves no handle behind.
        Throws<EmptyTopologyException>(() => new Router("{\"algorithm\":\"ring\",\"nodes\":[]}"), "empty");
        Check(Live == before, "a failed build holds no handle");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Drop(int n)
    {
        for (int i = 0; i < n; i++)
        {
            var r = new Router(Ring4);
            var t = new Transition(r, r, 0.25);
            Check(r.Route("k") >= 0 && t.Route("k") >= 0, "routes");
        }
    }

    static void FinalizersFreeDroppedHandles()
    {
        long before = Live;
        Drop(500);
        for (int i = 0; i < 5 && Live > before + 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        // Mono's collector scans stacks conservatively, so a stale stack slot may keep the last
        // router or transition alive: two of the thousand may stay, no more.
        Check(Live - before <= 2, (Live - before) + " of 1000 dropped handles not freed by their finalizers");
    }

    // ------------------------------------------------------------------ threads

    /// <summary>
    /// Threads route on one router (one key at a time and in batches) while the main thread
    /// disposes it once every thread has routed: each call either gives the right node or
    /// throws ObjectDisposedException, every call after Dispose throws, and the handle is freed
    /// once the threads are done.
    /// </summary>
    static void DisposeRacesWithCalls()
    {
        const int threads = 4, rounds = 40;
        long before = Live;
        string[] keys = new string[64];
        for (int i = 0; i < keys.Length; i++)
            keys[i] = "user:" + i;
        int[] want;
        using (var reference = new Router(Ring4))
            want = reference.RouteBatch(keys);
        int wrong = 0, disposedSeen = 0, otherErrors = 0;
        for (int round = 0; round < rounds; round++)
        {
            var r = new Router(Ring4);
            var started = new CountdownEvent(threads);
            var workers = new Thread[threads];
            for (int w = 0; w < threads; w++)
            {
                int id = w;
                workers[w] = new Thread(() =>
                {
                    bool signalled = false;
                    var nodes = new int[keys.Length];
                    try
                    {
                        for (int i = 0; ; i++)
                        {
                            int k = (i + id) % keys.Length;
                            if (r.Route(keys[k]) != want[k] || r.Route(B(keys[k])) != want[k])
                                Interlocked.Increment(ref wrong);
                            if (i % 16 == 0)
                            {
                                r.RouteBatch(keys, nodes);
                                for (int j = 0; j < keys.Length; j++)
                                    if (nodes[j] != want[j])
                                        Interlocked.Increment(ref wrong);
                            }
                            if (!signalled && i == 100)
                            {
                                started.Signal();
                                signalled = true;
                            }
                        }
                    }
                    catch (ObjectDisposedException)
                    {
                        Interlocked.Increment(ref disposedSeen);
                    }
                    catch (Exception)
                    {
                        Interlocked.Increment(ref otherErrors);
                    }
                    if (!signalled)
                        started.Signal();
                    // Every call after Dispose throws.
                    try
                    {
                        r.Route(keys[0]);
                        Interlocked.Increment(ref otherErrors);
                    }
                    catch (ObjectDisposedException)
                    {
                    }
                });
                workers[w].Start();
            }
            started.Wait();
            r.Dispose();
            foreach (var t in workers)
                t.Join();
        }
        Check(wrong == 0, wrong + " wrong routes while disposing");
        Check(otherErrors == 0, otherErrors + " calls failed otherwise than ObjectDisposedException");
        Check(disposedSeen == threads * rounds, disposedSeen + " threads saw the Dispose, expected " + threads * rounds);
        // At most as many as before: a handle the finalizer test left may be freed meanwhile.
        Check(Live <= before, (Live - before) + " handles left after the races");
    }

    /// <summary>
    /// Threads route through a transition while the main thread moves its progress from 0 to 1:
    /// every route is the key's owner in one of the two routers, and at progress 1 the second's.
    /// </summary>
    static void TransitionProgressRacesWithRoutes()
    {
        using (var a = new Router(Ring))
        using (var b = new Router(Ring4))
        using (var t = new Transition(a, b, 0))
        {
            int bad = 0;
            bool stop = false;
            var workers = new Thread[3];
            for (int w = 0; w < workers.Length; w++)
            {
                workers[w] = new Thread(() =>
                {
                    for (int i = 0; !Volatile.Read(ref stop); i++)
                    {
                        string k = "key:" + (i % 500);
                        string id = t.NodeId(t.Route(k));
                        if (id != a.RouteId(k) && id != b.RouteId(k))
                            Interlocked.Increment(ref bad);
                    }
                });
                workers[w].Start();
            }
            for (int step = 0; step <= 100; step++)
            {
                t.Progress = step / 100.0;
                Thread.Sleep(1);
            }
            Volatile.Write(ref stop, true);
            foreach (var w in workers)
                w.Join();
            Check(bad == 0, bad + " routes owned by neither router");
            for (int i = 0; i < 500; i++)
                Check(t.NodeId(t.Route("key:" + i)) == b.RouteId("key:" + i), "progress 1 routes like the second router");
        }
    }

    static int Main(string[] args)
    {
        expectVersion = args.Length > 0 ? args[0] : null;
        var tests = new Dictionary<string, Action>
        {
            { "Version", Version },
            { "CodesMatchTheLibrary", CodesMatchTheLibrary },
            { "ErrorKinds", ErrorKinds },
            { "Routes", Routes },
            { "Transitions", Transitions },
            { "DisposeDiscipline", DisposeDiscipline },
            { "FinalizersFreeDroppedHandles", FinalizersFreeDroppedHandles },
            { "DisposeRacesWithCalls", DisposeRacesWithCalls },
            { "TransitionProgressRacesWithRoutes", TransitionProgressRacesWithRoutes },
        };
        foreach (var t in tests)
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            try
            {
                t.Value();
                passed++;
                Console.WriteLine("ok: " + t.Key + " (" + clock.ElapsedMilliseconds + " ms)");
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine("FAIL: " + t.Key + ": " + e.Message);
            }
        }
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 && passed == tests.Count ? 0 : 1;
    }
}
