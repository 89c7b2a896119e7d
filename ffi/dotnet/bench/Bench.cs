// The .NET assembly's speed against a plain C# ring, measured in one run (ffi/dotnet/bench.sh
// builds and runs it; not a test): keyroute per call (Route(string), the string's UTF-16 passed
// without a copy) and batched (RouteBatch into a caller's array, 1,000 keys a call) against a
// plain C# sorted ring written for the bench (32-bit hashes of 160 points per node, sorted, and
// a hand-written binary search; the key hashed by the runtime's string hash with a 32-bit
// finalizer), at N = 10, 100 and 1000 nodes, and the cost of one bare P/Invoke (kr_version).
//
// Times are the measuring thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), medians of
// the passes, the implementations alternating within each pass. Prints a Markdown table of
// ns per key and ratios (the C# ring's time over keyroute's: above 1, keyroute is faster).
//
// Usage: mono Bench.exe [KEYS [RUNS]]   (1,000,000 keys, 7 passes by default)

using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using Keyroute;

static class Bench
{
    [StructLayout(LayoutKind.Sequential)]
    struct Timespec
    {
        public long Sec, Nsec;
    }

    [DllImport("libc")] static extern int clock_gettime(int clock, out Timespec t);
    [DllImport("keyroute")] static extern IntPtr kr_version();

    const int ThreadCpuTime = 3; // CLOCK_THREAD_CPUTIME_ID
    const int PointsPerNode = 160;
    const int Batch = 1000;

    static long Now()
    {
        Timespec t;
        clock_gettime(ThreadCpuTime, out t);
        return t.Sec * 1000000000L + t.Nsec;
    }

    /// <summary>murmur3's 32-bit finalizer: the runtime's string hash spread over 32 bits.</summary>
    static uint Mix(uint h)
    {
        h ^= h >> 16;
        h *= 0x85ebca6b;
        h ^= h >> 13;
        h *= 0xc2b2ae35;
        h ^= h >> 16;
        return h;
    }

    /// <summary>A plain consistent-hash ring: point hashes sorted, each with its node.</summary>
    sealed class SortedRing
    {
        readonly uint[] points;
        readonly int[] owners;

        public SortedRing(int nodes)
        {
            var all = new List<KeyValuePair<uint, int>>();
            for (int n = 0; n < nodes; n++)
                for (int p = 0; p < PointsPerNode; p++)
                    all.Add(new KeyValuePair<uint, int>(Mix((uint)("node-" + n + "-" + p).GetHashCode()), n));
            all.Sort((a, b) => a.Key.CompareTo(b.Key));
            points = new uint[all.Count];
            owners = new int[all.Count];
            for (int i = 0; i < all.Count; i++)
            {
                points[i] = all[i].Key;
                owners[i] = all[i].Value;
            }
        }

        public int Route(string key)
        {
            uint h = Mix((uint)key.GetHashCode());
            int lo = 0, hi = points.Length;
            while (lo < hi)
            {
                int mid = (lo + hi) >> 1;
                if (points[mid] < h)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            return owners[lo == points.Length ? 0 : lo];
        }
    }

    static string MonoVersion()
    {
        var t = Type.GetType("Mono.Runtime");
        var m = t == null ? null : t.GetMethod("GetDisplayName", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static);
        return m == null ? "?" : (string)m.Invoke(null, null);
    }

    static double Median(List<double> xs)
    {
        xs.Sort();
        return xs[xs.Count / 2];
    }

    static int Main(string[] args)
    {
        int keys = args.Length > 0 ? int.Parse(args[0]) : 1000000;
        int runs = args.Length > 1 ? int.Parse(args[1]) : 7;
        keys -= keys % Batch;
        var rng = new Random(42);
        var all = new string[keys];
        for (int i = 0; i < keys; i++)
            all[i] = "user:" + i.ToString("D7");
        for (int i = keys - 1; i > 0; i--)
        {
            int j = rng.Next(i + 1);
            string t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        var batches = new string[keys / Batch][];
        for (int b = 0; b < batches.Length; b++)
        {
            batches[b] = new string[Batch];
            Array.Copy(all, b * Batch, batches[b], 0, Batch);
        }

        // The bare P/Invoke: a call that does nothing but return a static pointer.
        var bare = new List<double>();
        long sink = 0;
        for (int run = 0; run < runs; run++)
        {
            long t0 = Now();
            for (int i = 0; i < keys; i++)
                sink += (long)kr_version();
            bare.Add((Now() - t0) / (double)keys);
        }
        Console.WriteLine("keyroute " + Library.Version + " (Mono " + MonoVersion() + "), " + keys + " keys, median of " + runs + " passes");
        Console.WriteLine("bare P/Invoke (kr_version): " + Median(bare).ToString("F1") + " ns");
        Console.WriteLine();
        Console.WriteLine("| N | keyroute per call | keyroute batched (1,000 keys a call) | plain C# sorted ring | C# ring / per call | C# ring / batched |");
        Console.WriteLine("|---|---|---|---|---|---|");
        var nodes = new int[Batch];
        foreach (int n in new[] { 10, 100, 1000 })
        {
            var ids = new List<string>();
            for (int i = 0; i < n; i++)
                ids.Add("{\"id\":\"node-" + i + "\"}");
            using (var r = new Router("{\"algorithm\":\"ring\",\"nodes\":[" + string.Join(",", ids) + "]}"))
            {
                var ring = new SortedRing(n);
                var perCall = new List<double>();
                var batched = new List<double>();
                var plain = new List<double>();
                for (int run = 0; run < runs; run++)
                {
                    long t0 = Now();
                    for (int i = 0; i < keys; i++)
                        sink += r.Route(all[i]);
                    long t1 = Now();
                    foreach (var b in batches)
                    {
                        r.RouteBatch(b, nodes);
                        sink += nodes[0];
                    }
                    long t2 = Now();
                    for (int i = 0; i < keys; i++)
                        sink += ring.Route(all[i]);
                    long t3 = Now();
                    perCall.Add((t1 - t0) / (double)keys);
                    batched.Add((t2 - t1) / (double)keys);
                    plain.Add((t3 - t2) / (double)keys);
                }
                double pc = Median(perCall), bt = Median(batched), pl = Median(plain);
                Console.WriteLine("| " + n + " | " + pc.ToString("F1") + " | " + bt.ToString("F1") + " | " + pl.ToString("F1") + " | "
                    + (pl / pc).ToString("F2") + "x | " + (pl / bt).ToString("F2") + "x |");
            }
        }
        return sink == 42 ? 1 : 0;
    }
}
