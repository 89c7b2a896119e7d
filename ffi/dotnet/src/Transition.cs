using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;

namespace Keyroute
{
    /// <summary>
    /// Where a key routes during a transition (<see cref="Transition.RouteWithFallback(byte[])"/>).
    /// </summary>
    public struct Placement
    {
        /// <summary>
        /// The node that owns the key now (a transition node index).
        /// </summary>
        public int Owner;

        /// <summary>
        /// The node that owned it before when <see cref="HasPrevious"/>; otherwise <see cref="Owner"/>.
        /// </summary>
        public int Previous;

        /// <summary>
        /// Whether the key has cut over to a different node: read from <see cref="Previous"/> on
        /// a miss.
        /// </summary>
        public bool HasPrevious;
    }

    /// <summary>
    /// A gradual change from one router to another at some progress: keys cut over from their
    /// owner in the first router to their owner in the second in a fixed order as progress
    /// grows from 0 to 1. Node indices are the transition's own (the union of both routers'
    /// nodes, <see cref="NodeId"/>). Safe for concurrent use, also while one thread moves
    /// <see cref="Progress"/>; its lifetime rules are a <see cref="Router"/>'s.
    /// </summary>
    public sealed unsafe class Transition : IDisposable
    {
        readonly TransitionHandle handle;
        readonly string[] ids;
        volatile bool disposed;

        /// <summary>
        /// The handle for a call, or <see cref="ObjectDisposedException"/> once
        /// <see cref="Dispose"/> was called. The marshaller's reference on the handle keeps the
        /// memory alive for a call that got past this check when Dispose ran; this check makes
        /// every call that starts after Dispose throw, even while other calls are still in
        /// flight (the handle's own count only refuses once the last of them returns).
        /// </summary>
        TransitionHandle H
        {
            get
            {
                if (disposed)
                    throw new ObjectDisposedException("Keyroute.Transition");
                return handle;
            }
        }

        /// <summary>
        /// A transition from <paramref name="from"/> to <paramref name="to"/> at
        /// <paramref name="progress"/> (0 to 1). It holds its own references to both routers,
        /// which may be disposed afterwards.
        /// </summary>
        /// <exception cref="InvalidParameterException">For a progress outside 0 to 1.</exception>
        public Transition(Router from, Router to, double progress)
        {
            if (from == null)
                throw new ArgumentNullException("from");
            if (to == null)
                throw new ArgumentNullException("to");
            TransitionHandle h;
            handle = Native.Created(Native.kr_transition_new(from.Handle, to.Handle, progress, out h), h);
            try
            {
                uint count;
                Native.Check(Native.kr_transition_node_count(H, out count));
                ids = new string[count];
                for (uint i = 0; i < count; i++)
                {
                    IntPtr p;
                    UIntPtr n;
                    Native.Check(Native.kr_transition_node_id(H, i, out p, out n));
                    ids[i] = Native.Span(p, n);
                }
            }
            catch
            {
                handle.Dispose();
                throw;
            }
        }

        /// <summary>
        /// Releases the transition's C memory (after any call in flight returns). Idempotent.
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
        /// The number of nodes of the transition (both routers' nodes, each once).
        /// </summary>
        public int NodeCount { get { return ids.Length; } }

        /// <summary>
        /// The id of transition node index <paramref name="node"/>.
        /// </summary>
        public string NodeId(int node) { return ids[node]; }

        /// <summary>
        /// The transition's node ids.
        /// </summary>
        public IReadOnlyList<string> NodeIds { get { return new ReadOnlyCollection<string>(ids); } }

        /// <summary>
        /// The share of keys that have cut over, 0 to 1; setting it moves every thread's routes
        /// at once.
        /// </summary>
        /// <exception cref="InvalidParameterException">Set outside 0 to 1.</exception>
        public double Progress
        {
            get
            {
                double p;
                Native.Check(Native.kr_transition_progress(H, out p));
                return p;
            }
            set { Native.Check(Native.kr_transition_set_progress(H, value)); }
        }

        /// <summary>
        /// The node that owns a byte key at the current progress.
        /// </summary>
        public int Route(byte[] key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            uint node;
            fixed (byte* k = key)
                Native.Check(Native.kr_transition_route(H, k, (UIntPtr)key.Length, out node));
            return (int)node;
        }

        /// <summary>
        /// <see cref="Route(byte[])"/> of a text key's UTF-8.
        /// </summary>
        public int Route(string key) { return Route(Native.Utf8(key, "key")); }

        /// <summary>
        /// The owner of a byte key now and, when it has cut over, its owner before.
        /// </summary>
        public Placement RouteWithFallback(byte[] key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            NativePlacement p;
            fixed (byte* k = key)
                Native.Check(Native.kr_transition_route_with_fallback(H, k, (UIntPtr)key.Length, out p));
            return new Placement { Owner = (int)p.Owner, Previous = (int)p.Previous, HasPrevious = p.HasPrevious != 0 };
        }

        /// <summary>
        /// <see cref="RouteWithFallback(byte[])"/> of a text key's UTF-8.
        /// </summary>
        public Placement RouteWithFallback(string key) { return RouteWithFallback(Native.Utf8(key, "key")); }

        /// <summary>
        /// Whether a byte key has cut over to its owner in the second router.
        /// </summary>
        public bool HasCutOver(byte[] key)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            byte b;
            fixed (byte* k = key)
                Native.Check(Native.kr_transition_has_cut_over(H, k, (UIntPtr)key.Length, out b));
            return b != 0;
        }

        /// <summary>
        /// <see cref="HasCutOver(byte[])"/> of a text key's UTF-8.
        /// </summary>
        public bool HasCutOver(string key) { return HasCutOver(Native.Utf8(key, "key")); }
    }
}
