using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Text;

namespace Keyroute
{
    /// <summary>
    /// An immutable router built from a topology spec, over the C library (<c>libkeyroute</c>):
    /// key for key the same routes as every other keyroute surface. Its methods are safe to call
    /// from any number of threads at once, also while one of them calls <see cref="Dispose"/>:
    /// the router's memory is freed after the last call in flight returns, and a call that
    /// starts after <see cref="Dispose"/> throws <see cref="ObjectDisposedException"/>. A router
    /// that is dropped without <see cref="Dispose"/> is freed by its finalizer.
    /// </summary>
    /// <remarks>
    /// Results are node indices in the spec's order (<see cref="NodeId"/> gives the id). Failures
    /// throw the <see cref="KeyrouteException"/> subclass of their kind.
    /// </remarks>
    public sealed unsafe class Router : IDisposable
    {
        readonly RouterHandle handle;
        readonly string[] ids;
        volatile bool disposed;

        /// <summary>
        /// The handle for a call, or <see cref="ObjectDisposedException"/> once
        /// <see cref="Dispose"/> was called. The marshaller's reference on the handle keeps the
        /// memory alive for a call that got past this check when Dispose ran; this check makes
        /// every call that starts after Dispose throw, even while other calls are still in
        /// flight (the handle's own count only refuses once the last of them returns).
        /// </summary>
        RouterHandle H
        {
            get
            {
                if (disposed)
                    throw new ObjectDisposedException("Keyroute.Router");
                return handle;
            }
        }

        /// <summary>
        /// Builds a router from a topology spec in JSON, under the default limits.
        /// </summary>
        /// <param name="specJson">The spec, e.g.
        /// <c>{"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]}</c>.</param>
        /// <exception cref="KeyrouteException">The subclass of the spec's error:
        /// <see cref="InvalidJsonException"/>, <see cref="InvalidSpecException"/>,
        /// <see cref="UnknownAlgorithmException"/>, <see cref="EmptyTopologyException"/>, ….</exception>
        public Router(string specJson) : this(Native.Utf8(specJson, "specJson"), null) { }

        /// <summary>
        /// Builds a router from a topology spec given as UTF-8 bytes, under the limits of
        /// <paramref name="limitsJson"/> (a JSON object of the limits to change, such as
        /// <c>{"max_points": 8388608}</c>; null for the defaults).
        /// </summary>
        public static Router FromJson(byte[] spec, string limitsJson = null)
        {
            if (spec == null)
                throw new ArgumentNullException("spec");
            return new Router(spec, limitsJson == null ? null : Native.Utf8(limitsJson, "limitsJson"));
        }

        Router(byte[] spec, byte[] limits)
        {
            RouterHandle h;
            uint st;
            fixed (byte* s = spec)
            fixed (byte* l = limits)
            {
                var len = (UIntPtr)spec.Length;
                st = limits == null
                    ? Native.kr_router_from_json(s, len, out h)
                    : Native.kr_router_from_json_with_limits(s, len, l, (UIntPtr)limits.Length, out h);
            }
            handle = Native.Created(st, h);
            try
            {
                uint count;
                Native.Check(Native.kr_router_node_count(H, out count));
                ids = new string[count];
                for (uint i = 0; i < count; i++)
                {
                    IntPtr p;
                    UIntPtr n;
                    Native.Check(Native.kr_router_node_id(H, i, out p, out n));
                    ids[i] = Native.Span(p, n);
                }
            }
            catch
            {
                handle.Dispose();
                throw;
            }
        }

        internal RouterHandle Handle { get { return H; } }

        /// <summary>
        /// Releases the router's C memory (after any call in flight on another thread returns).
        /// Idempotent. Transitions built from it keep their own reference.
        /// </summary>
        public void Dispose()
        {
            disposed = true;
            handle.Dispose();
        }

        /// <summary>
        /// Whether <see cref="Dispose"/> was called.
        /// </summary>
        public bool IsDisposed { get { return disposed; } }

        /// <summary>
        /// The number of nodes: route results are below it. Read from a managed copy, so it
        /// also answers after <see cref="Dispose"/>.
        /// </summary>
        public int NodeCount { get { return ids.Length; } }

        /// <summary>
        /// The id of node index <paramref name="node"/> (the spec's order), from a managed copy.
        /// </summary>
        /// <exception cref="IndexOutOfRangeException">For an index out of range.</exception>
        public string NodeId(int node) { return ids[node]; }

        /// <summary>
        /// The node ids in the spec's order.
        /// </summary>
        public IReadOnlyList<string> NodeIds { get { return new ReadOnlyCollection<string>(ids); } }

        /// <summary>
        /// The index of the node that owns a byte key. Allocates nothing.
        /// </summary>
        public int Route(byte[] key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            uint node;
            fixed (byte* k = key)
                Native.Check(Native.kr_route(H, k, (UIntPtr)key.Length, out node));
            return (int)node;
        }

        /// <summary>
        /// The index of the node that owns a text key, routed by its UTF-8 (the same node as
        /// <see cref="Route(byte[])"/> of <c>Encoding.UTF8.GetBytes(key)</c>). The string's
        /// UTF-16 goes to the library as it is, without a copy; text holding a lone surrogate is
        /// refused with <see cref="InvalidUtf8Exception"/>, never replaced by U+FFFD (which would
        /// route like another key).
        /// </summary>
        public int Route(string key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            uint node;
            fixed (char* k = key)
                Native.Check(Native.kr_route_utf16(H, k, (UIntPtr)key.Length, out node));
            return (int)node;
        }

        /// <summary>
        /// The id of the node that owns a text key.
        /// </summary>
        public string RouteId(string key) { return ids[Route(key)]; }

        /// <summary>
        /// The id of the node that owns a byte key.
        /// </summary>
        public string RouteId(byte[] key) { return ids[Route(key)]; }

        [ThreadStatic] static byte[] batchBytes;
        [ThreadStatic] static KeySpan[] batchSpans;

        /// <summary>
        /// Routes every key in one call into the library (the core's batch path, which hashes
        /// several keys before touching the table): element <c>i</c> of the result is the owner
        /// of <c>keys[i]</c>. Keys are routed by their UTF-8; a lone surrogate throws
        /// <see cref="InvalidUtf8Exception"/>.
        /// </summary>
        public int[] RouteBatch(IList<string> keys)
        {
            if (keys == null)
                throw new ArgumentNullException("keys");
            var nodes = new int[keys.Count];
            RouteBatch(keys, nodes);
            return nodes;
        }

        /// <summary>
        /// <see cref="RouteBatch(IList{string})"/> writing into <paramref name="nodes"/>, which
        /// must be at least as long as <paramref name="keys"/> (else
        /// <see cref="BufferTooSmallException"/>). Reuses a per-thread buffer for the keys'
        /// bytes, so a steady caller allocates nothing.
        /// </summary>
        public void RouteBatch(IList<string> keys, int[] nodes)
        {
            if (keys == null)
                throw new ArgumentNullException("keys");
            long room = 0;
            for (int i = 0; i < keys.Count; i++)
            {
                if (keys[i] == null)
                    throw new ArgumentNullException("keys", "key " + i + " is null");
                room += 3L * keys[i].Length;
            }
            byte[] buf = Scratch(ref batchBytes, checked((int)room));
            var spans = Scratch(ref batchSpans, keys.Count);
            fixed (byte* b = buf)
            {
                int at = 0;
                for (int i = 0; i < keys.Count; i++)
                {
                    int n;
                    fixed (char* k = keys[i])
                        n = Native.EncodeUtf8(k, keys[i].Length, b + at);
                    if (n < 0)
                        throw new InvalidUtf8Exception("key " + i + " holds a lone surrogate");
                    spans[i].Len = (UIntPtr)n;
                    at += n;
                }
            }
            RoutePacked(buf, spans, keys.Count, nodes);
        }

        /// <summary>
        /// <see cref="RouteBatch(IList{string})"/> for byte keys.
        /// </summary>
        public int[] RouteBatch(IList<byte[]> keys)
        {
            if (keys == null)
                throw new ArgumentNullException("keys");
            int total = 0;
            for (int i = 0; i < keys.Count; i++)
            {
                if (keys[i] == null)
                    throw new ArgumentNullException("keys", "key " + i + " is null");
                total = checked(total + keys[i].Length);
            }
            byte[] buf = Scratch(ref batchBytes, total);
            var ends = Scratch(ref batchSpans, keys.Count);
            int at = 0;
            for (int i = 0; i < keys.Count; i++)
            {
                Buffer.BlockCopy(keys[i], 0, buf, at, keys[i].Length);
                ends[i].Len = (UIntPtr)keys[i].Length;
                at += keys[i].Length;
            }
            var nodes = new int[keys.Count];
            RoutePacked(buf, ends, keys.Count, nodes);
            return nodes;
        }

        static T[] Scratch<T>(ref T[] slot, int n)
        {
            if (slot == null || slot.Length < n)
                slot = new T[Math.Max(n, 16)];
            return slot;
        }

        /// <summary>
        /// Routes <paramref name="count"/> keys laid back to back in <paramref name="buf"/>, each
        /// span's <c>Len</c> set, into <paramref name="nodes"/>.
        /// </summary>
        void RoutePacked(byte[] buf, KeySpan[] spans, int count, int[] nodes)
        {
            if (nodes == null)
                throw new ArgumentNullException("nodes");
            if (nodes.Length < count)
                throw new BufferTooSmallException("nodes holds " + nodes.Length + " results, the batch has " + count + " keys");
            if (count == 0)
            {
                if (disposed)
                    throw new ObjectDisposedException("Keyroute.Router");
                return;
            }
            fixed (byte* b = buf)
            fixed (KeySpan* s = spans)
            fixed (int* n = nodes)
            {
                long at = 0;
                for (int i = 0; i < count; i++)
                {
                    s[i].Ptr = (IntPtr)(b + at);
                    at += (long)s[i].Len.ToUInt64();
                }
                Native.Check(Native.kr_route_batch(H, s, (UIntPtr)count, (uint*)n, (UIntPtr)nodes.Length));
            }
        }

        /// <summary>
        /// <paramref name="count"/> distinct nodes for a byte key in preference order (the first
        /// is the owner), spread over distinct zones first when nodes carry zones.
        /// </summary>
        /// <exception cref="ReplicasUnsupportedException">For jump, modulo and presets whose
        /// peer defines no order.</exception>
        /// <exception cref="ReplicasExceedNodesException">For more replicas than nodes.</exception>
        public int[] Replicas(byte[] key, int count)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            if (count < 0)
                throw new InvalidParameterException("count is negative: " + count);
            var nodes = new int[count];
            fixed (byte* k = key)
            fixed (int* n = nodes)
                Native.Check(Native.kr_replicas(H, k, (UIntPtr)key.Length, (uint*)n, (UIntPtr)count));
            return nodes;
        }

        /// <summary>
        /// <see cref="Replicas(byte[], int)"/> of a text key's UTF-8.
        /// </summary>
        public int[] Replicas(string key, int count) { return Replicas(Native.Utf8(key, "key"), count); }

        /// <summary>
        /// Read spreading for a hot key: the <c>selector mod replicas</c>-th of the key's first
        /// <paramref name="replicas"/> replicas (owner first). Pass
        /// <see cref="ClientSelector"/> of the client's id for a copy that stays the same per
        /// client, or a random number to spread every read.
        /// </summary>
        /// <exception cref="InvalidParameterException">For <paramref name="replicas"/> 0 or below.</exception>
        public int Spread(byte[] key, int replicas, ulong selector)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            if (replicas < 0)
                throw new InvalidParameterException("replicas is negative: " + replicas);
            uint node;
            fixed (byte* k = key)
                Native.Check(Native.kr_spread(H, k, (UIntPtr)key.Length, (UIntPtr)replicas, selector, out node));
            return (int)node;
        }

        /// <summary>
        /// <see cref="Spread(byte[], int, ulong)"/> of a text key's UTF-8.
        /// </summary>
        public int Spread(string key, int replicas, ulong selector) { return Spread(Native.Utf8(key, "key"), replicas, selector); }

        /// <summary>
        /// The read-spreading selector of a client id (XXH3-64 of its UTF-8), the same on every
        /// surface.
        /// </summary>
        public static ulong ClientSelector(string client)
        {
            byte[] id = Native.Utf8(client, "client");
            ulong s;
            fixed (byte* p = id)
                Native.Check(Native.kr_client_selector(p, (UIntPtr)id.Length, out s));
            return s;
        }

        /// <summary>
        /// What the router supports.
        /// </summary>
        public Capabilities Capabilities
        {
            get
            {
                NativeCapabilities c;
                Native.Check(Native.kr_router_capabilities(H, out c));
                return new Capabilities(c);
            }
        }

        /// <summary>
        /// The slot a byte key falls in, for routers built on a slot table (<c>slots</c>,
        /// <c>redis-cluster</c>); null for the others.
        /// </summary>
        public int? Slot(byte[] key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            byte has;
            uint slot;
            fixed (byte* k = key)
                Native.Check(Native.kr_slot(H, k, (UIntPtr)key.Length, out has, out slot));
            return has != 0 ? (int?)slot : null;
        }

        /// <summary>
        /// <see cref="Slot(byte[])"/> of a text key's UTF-8.
        /// </summary>
        public int? Slot(string key) { return Slot(Native.Utf8(key, "key")); }

        /// <summary>
        /// The 64-bit hash the router routes a key on (<see cref="RouteHash"/> of it gives the
        /// key's owner).
        /// </summary>
        /// <exception cref="RouteHashUnsupportedException">For algorithms that do not route on
        /// one key hash.</exception>
        public ulong KeyHash(byte[] key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            ulong h;
            fixed (byte* k = key)
                Native.Check(Native.kr_key_hash(H, k, (UIntPtr)key.Length, out h));
            return h;
        }

        /// <summary>
        /// The node that owns a 64-bit key hash (<see cref="KeyHash"/>).
        /// </summary>
        public int RouteHash(ulong hash)
        {
            uint node;
            Native.Check(Native.kr_route_hash(H, hash, out node));
            return (int)node;
        }

        /// <summary>
        /// The fingerprint of the router's canonical spec: equal on every surface for the same
        /// topology.
        /// </summary>
        public ulong Fingerprint
        {
            get
            {
                ulong f;
                Native.Check(Native.kr_router_fingerprint(H, out f));
                return f;
            }
        }

        /// <summary>
        /// The spec's <c>version</c> (0 when it gives none).
        /// </summary>
        public ulong SpecVersion
        {
            get
            {
                ulong v;
                Native.Check(Native.kr_router_version(H, out v));
                return v;
            }
        }

        /// <summary>
        /// The canonical JSON of the router's spec: every default filled in, keys sorted, no
        /// whitespace.
        /// </summary>
        public string CanonicalJson
        {
            get
            {
                bool added = false;
                try
                {
                    // The text is borrowed from the router: hold a reference while copying it.
                    H.DangerousAddRef(ref added);
                    IntPtr p;
                    UIntPtr n;
                    Native.Check(Native.kr_router_canonical_json(H, out p, out n));
                    return Native.Span(p, n);
                }
                finally
                {
                    if (added)
                        handle.DangerousRelease();
                }
            }
        }

        /// <summary>
        /// <c>keyroute.Router(N nodes)</c>.
        /// </summary>
        public override string ToString()
        {
            return "keyroute.Router(" + ids.Length + " nodes" + (IsDisposed ? ", disposed)" : ")");
        }
    }
}
