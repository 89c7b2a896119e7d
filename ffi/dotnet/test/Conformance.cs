// The conformance corpus through the .NET assembly: every case of every vector file, as
// flattened by ffi/java/vectors.py (one reader of the JSON for the surfaces whose runtime has no
// JSON parser at hand). Each file's router is built from its spec; each case routes its key
// through Route(byte[]) (and Route(string) for text keys; Route(string) of the UTF-16 code units
// for key_utf16 cases), compares the node id, the replicas and the slot, and expects the case's
// error (the typed exception of its kind, stable code and name) where it gives one. Where the
// router routes on a key hash, RouteHash of KeyHash must give the same owner. Every file's keys
// also go through RouteBatch in one call. Cases no C-ABI caller can express (key_type, spec_toml)
// are counted as not for this surface.
//
// Usage: mono Conformance.exe vectors.tsv --min-files N
// Closes with "N passed, M failed" (cases); exits non-zero on any failure, on a corpus of fewer
// files than N, or on a file with no case run.

using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using Keyroute;

static class Conformance
{
    static int passed, failed, skipped, files, batched, hashed;

    static byte[] Hex(string s)
    {
        var b = new byte[s.Length / 2];
        for (int i = 0; i < b.Length; i++)
            b[i] = Convert.ToByte(s.Substring(2 * i, 2), 16);
        return b;
    }

    static string Text(string hex) { return Encoding.UTF8.GetString(Hex(hex)); }

    static void Fail(string file, string id, string why)
    {
        failed++;
        if (failed <= 40)
            Console.WriteLine("FAIL " + file + " " + id + ": " + why);
    }

    /// <summary>Null when e is the expected error (by code, name and class), else why not.</summary>
    static string CheckError(string expected, KeyrouteException e)
    {
        if (!expected.StartsWith("e:"))
            return "unexpected " + e.Message;
        string want = expected.Substring(2);
        string got = e.CodeName + ":" + (uint)e.Code;
        if (want != got)
            return "expected " + want + ", got " + got + " (" + e.Message + ")";
        string cls = e.GetType().Name;
        string plain = e.Code + "Exception";
        if (cls != plain && cls != "Keyroute" + plain)
            return "error " + got + " raised as " + cls;
        return null;
    }

    static Router Build(byte[] spec, string limits) { return Router.FromJson(spec, limits); }

    /// <summary>One case; null when it passes, else why not.</summary>
    static string RunCase(Router fileRouter, string[] f, List<byte[]> batchKeys, List<string> batchWant)
    {
        string ownSpec = f[2], limits = f[3], key = f[4], replicasCount = f[5], expected = f[6], replicas = f[7], slot = f[8];
        Router own = null;
        Router r = fileRouter;
        try
        {
            if (ownSpec != "-")
            {
                try
                {
                    own = Build(Hex(ownSpec), limits == "-" ? null : Text(limits));
                }
                catch (KeyrouteException e)
                {
                    return CheckError(expected, e);
                }
                r = own;
            }
            if (r == null)
                return "no spec";
            if (key == "-")
                return expected.StartsWith("e:") ? "expected " + expected + ", the spec built" : null;
            string viaString = null;
            byte[] bytes = null;
            if (key.StartsWith("u:"))
            {
                string[] units = key.Substring(2).Split(',');
                var cs = new char[key.Length == 2 ? 0 : units.Length];
                for (int i = 0; i < cs.Length; i++)
                    cs[i] = (char)int.Parse(units[i]);
                viaString = new string(cs);
            }
            else
            {
                bytes = Hex(key.Substring(2));
                if (key.StartsWith("t:"))
                    viaString = Encoding.UTF8.GetString(bytes);
            }
            if (replicasCount != "-")
            {
                try
                {
                    int[] got = bytes != null ? r.Replicas(bytes, int.Parse(replicasCount)) : r.Replicas(viaString, int.Parse(replicasCount));
                    return "expected " + expected + ", got replicas " + string.Join(",", got);
                }
                catch (KeyrouteException e)
                {
                    return CheckError(expected, e);
                }
            }
            int node;
            try
            {
                node = bytes != null ? r.Route(bytes) : r.Route(viaString);
            }
            catch (KeyrouteException e)
            {
                return CheckError(expected, e);
            }
            if (expected.StartsWith("e:"))
                return "expected " + expected + ", got node " + r.NodeId(node);
            string want = Text(expected.Substring(2));
            if (r.NodeId(node) != want)
                return "node " + r.NodeId(node) + ", expected " + want;
            if (viaString != null && r.Route(viaString) != node)
                return "Route(string) disagrees with Route(byte[])";
            if (bytes != null && r.RouteId(bytes) != want)
                return "RouteId disagrees with Route";
            if (bytes != null)
            {
                ulong hash = 0;
                bool byHash = true;
                try
                {
                    hash = r.KeyHash(bytes);
                }
                catch (RouteHashUnsupportedException)
                {
                    byHash = false;
                }
                if (byHash)
                {
                    if (r.RouteHash(hash) != node)
                        return "RouteHash of KeyHash " + hash.ToString("x16") + " disagrees with Route";
                    hashed++;
                }
                else
                {
                    try
                    {
                        r.RouteHash(hash);
                        return "KeyHash refused, RouteHash did not";
                    }
                    catch (RouteHashUnsupportedException)
                    {
                    }
                }
            }
            if (replicas != "-")
            {
                string[] want_ = replicas.Split(',');
                int[] rep = bytes != null ? r.Replicas(bytes, want_.Length) : r.Replicas(viaString, want_.Length);
                for (int i = 0; i < want_.Length; i++)
                    if (r.NodeId(rep[i]) != Text(want_[i]))
                        return "replica " + i + " is " + r.NodeId(rep[i]) + ", expected " + Text(want_[i]);
            }
            if (slot != "-")
            {
                int? s = bytes != null ? r.Slot(bytes) : r.Slot(viaString);
                if (s != int.Parse(slot))
                    return "slot " + s + ", expected " + slot;
            }
            if (own == null && bytes != null)
            {
                batchKeys.Add(bytes);
                batchWant.Add(want);
            }
            return null;
        }
        finally
        {
            if (own != null)
                own.Dispose();
        }
    }

    static void FinishFile(string file, Router r, List<byte[]> keys, List<string> want, int cases)
    {
        if (file == null)
            return;
        if (cases == 0)
            Fail(file, "-", "no case ran");
        if (r != null && keys.Count > 0)
        {
            int[] got = r.RouteBatch(keys);
            for (int i = 0; i < got.Length; i++)
            {
                if (r.NodeId(got[i]) != want[i])
                {
                    Fail(file, "batch[" + i + "]", "RouteBatch gives " + r.NodeId(got[i]) + ", expected " + want[i]);
                    break;
                }
            }
            batched += got.Length;
        }
        if (r != null)
            r.Dispose();
    }

    static int Main(string[] args)
    {
        int minFiles = args.Length > 2 && args[1] == "--min-files" ? int.Parse(args[2]) : 1;
        string file = null;
        Router router = null;
        var batchKeys = new List<byte[]>();
        var batchWant = new List<string>();
        int cases = 0;
        foreach (string line in File.ReadLines(args[0], Encoding.UTF8))
        {
            string[] f = line.Split('\t');
            switch (f[0])
            {
                case "file":
                    FinishFile(file, router, batchKeys, batchWant, cases);
                    file = f[1];
                    files++;
                    cases = 0;
                    batchKeys.Clear();
                    batchWant.Clear();
                    router = null;
                    try
                    {
                        router = f[2] == "-" ? null : Build(Hex(f[2]), null);
                    }
                    catch (KeyrouteException e)
                    {
                        Fail(file, "-", "the file's spec does not build: " + e.Message);
                    }
                    break;
                case "skip":
                    skipped++;
                    cases++;
                    break;
                case "case":
                    cases++;
                    string why;
                    try
                    {
                        why = RunCase(router, f, batchKeys, batchWant);
                    }
                    catch (Exception e)
                    {
                        why = "threw " + e;
                    }
                    if (why == null)
                        passed++;
                    else
                        Fail(file, f[1], why);
                    break;
                default:
                    Console.WriteLine("unknown line kind " + f[0]);
                    return 2;
            }
        }
        FinishFile(file, router, batchKeys, batchWant, cases);
        Console.WriteLine("conformance: " + files + " files, " + (passed + failed) + " cases, " + hashed + " also by key hash, "
            + batched + " keys also by RouteBatch, " + skipped + " not for this surface (key_type, spec_toml)");
        if (files < minFiles)
        {
            Console.WriteLine("FAIL: " + files + " vector files, expected at least " + minFiles);
            failed++;
        }
        if (passed == 0 || hashed == 0 || batched == 0)
        {
            Console.WriteLine("FAIL: nothing was checked");
            failed++;
        }
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
