using System;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Microsoft.Win32.SafeHandles;

namespace Keyroute
{
    /// <summary>
    /// A <c>kr_router</c> handle. The P/Invoke marshaller takes a reference on it for each call,
    /// so a <see cref="SafeHandle.Dispose()"/> racing with calls on other threads frees the router
    /// only after the last of them returns, and a call after it throws
    /// <see cref="ObjectDisposedException"/>. Its finalizer frees a router that was dropped.
    /// </summary>
    internal sealed class RouterHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        RouterHandle() : base(true) { }

        protected override bool ReleaseHandle()
        {
            Native.kr_router_free(handle);
            Interlocked.Decrement(ref Native.LiveHandles);
            return true;
        }
    }

    /// <summary>
    /// A <c>kr_transition</c> handle, with the lifetime rules of <see cref="RouterHandle"/>.
    /// </summary>
    internal sealed class TransitionHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        TransitionHandle() : base(true) { }

        protected override bool ReleaseHandle()
        {
            Native.kr_transition_free(handle);
            Interlocked.Decrement(ref Native.LiveHandles);
            return true;
        }
    }

    /// <summary>
    /// One key of a batch (<c>kr_key</c>): a byte span.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct KeySpan
    {
        public IntPtr Ptr;
        public UIntPtr Len;
    }

    /// <summary>
    /// <c>kr_capabilities</c>.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct NativeCapabilities
    {
        public uint Weights;
        public uint Analysis;
        public uint SampleKeys;
        public uint Slots;
        public uint PointsPerWeight;
        public byte Replicas;
        public byte RouteHash;
        public byte Rebalance;
    }

    /// <summary>
    /// <c>kr_placement</c>.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct NativePlacement
    {
        public uint Owner;
        public uint Previous;
        public byte HasPrevious;
    }

    /// <summary>
    /// The C ABI (ffi/include/keyroute.h), and the status check every call goes through.
    /// </summary>
    internal static unsafe class Native
    {
        const string Lib = "keyroute";

        /// <summary>
        /// Handles created and not yet released (for the tests of finalizers and Dispose).
        /// </summary>
        internal static long LiveHandles;

        /// <summary>
        /// Text that must be UTF-8: a lone surrogate throws instead of becoming U+FFFD.
        /// </summary>
        internal static readonly UTF8Encoding StrictUtf8 = new UTF8Encoding(false, true);

        [DllImport(Lib)] internal static extern IntPtr kr_last_error_message();
        [DllImport(Lib)] internal static extern IntPtr kr_status_name(uint status);
        [DllImport(Lib)] internal static extern IntPtr kr_version();
        [DllImport(Lib)]
        [return: MarshalAs(UnmanagedType.U1)]
        internal static extern bool kr_version_compatible(uint major, uint minor, uint patch);

        [DllImport(Lib)] internal static extern uint kr_router_from_json(byte* json, UIntPtr len, out RouterHandle router);
        [DllImport(Lib)]
        internal static extern uint kr_router_from_json_with_limits(byte* json, UIntPtr len, byte* limits, UIntPtr limitsLen, out RouterHandle router);
        [DllImport(Lib)] internal static extern void kr_router_free(IntPtr router);
        [DllImport(Lib)] internal static extern uint kr_route(RouterHandle router, byte* key, UIntPtr len, out uint node);
        [DllImport(Lib)] internal static extern uint kr_route_utf16(RouterHandle router, char* units, UIntPtr len, out uint node);
        [DllImport(Lib)]
        internal static extern uint kr_route_batch(RouterHandle router, KeySpan* keys, UIntPtr count, uint* nodes, UIntPtr nodesLen);
        [DllImport(Lib)] internal static extern uint kr_replicas(RouterHandle router, byte* key, UIntPtr len, uint* nodes, UIntPtr count);
        [DllImport(Lib)]
        internal static extern uint kr_spread(RouterHandle router, byte* key, UIntPtr len, UIntPtr r, ulong selector, out uint node);
        [DllImport(Lib)] internal static extern uint kr_client_selector(byte* client, UIntPtr len, out ulong selector);
        [DllImport(Lib)] internal static extern uint kr_router_capabilities(RouterHandle router, out NativeCapabilities capabilities);
        [DllImport(Lib)] internal static extern uint kr_slot(RouterHandle router, byte* key, UIntPtr len, out byte hasSlot, out uint slot);
        [DllImport(Lib)] internal static extern uint kr_key_hash(RouterHandle router, byte* key, UIntPtr len, out ulong hash);
        [DllImport(Lib)] internal static extern uint kr_route_hash(RouterHandle router, ulong hash, out uint node);
        [DllImport(Lib)] internal static extern uint kr_router_node_count(RouterHandle router, out uint count);
        [DllImport(Lib)] internal static extern uint kr_router_node_id(RouterHandle router, uint index, out IntPtr id, out UIntPtr len);
        [DllImport(Lib)] internal static extern uint kr_router_fingerprint(RouterHandle router, out ulong fingerprint);
        [DllImport(Lib)] internal static extern uint kr_router_version(RouterHandle router, out ulong version);
        [DllImport(Lib)] internal static extern uint kr_router_canonical_json(RouterHandle router, out IntPtr json, out UIntPtr len);

        [DllImport(Lib)]
        internal static extern uint kr_transition_new(RouterHandle from, RouterHandle to, double progress, out TransitionHandle transition);
        [DllImport(Lib)] internal static extern void kr_transition_free(IntPtr transition);
        [DllImport(Lib)] internal static extern uint kr_transition_progress(TransitionHandle t, out double progress);
        [DllImport(Lib)] internal static extern uint kr_transition_set_progress(TransitionHandle t, double progress);
        [DllImport(Lib)] internal static extern uint kr_transition_route(TransitionHandle t, byte* key, UIntPtr len, out uint node);
        [DllImport(Lib)]
        internal static extern uint kr_transition_route_with_fallback(TransitionHandle t, byte* key, UIntPtr len, out NativePlacement placement);
        [DllImport(Lib)] internal static extern uint kr_transition_has_cut_over(TransitionHandle t, byte* key, UIntPtr len, out byte cutOver);
        [DllImport(Lib)] internal static extern uint kr_transition_node_count(TransitionHandle t, out uint count);
        [DllImport(Lib)] internal static extern uint kr_transition_node_id(TransitionHandle t, uint index, out IntPtr id, out UIntPtr len);

        /// <summary>
        /// Throws the typed exception of a failed status, with the message of the failure (read
        /// on the calling thread, which is the thread the call ran on).
        /// </summary>
        internal static void Check(uint status)
        {
            if (status != 0)
                throw KeyrouteException.Create((ErrorCode)status, CString(kr_last_error_message()));
        }

        /// <summary>
        /// A handle just created by a successful call, counted; a failed call's (invalid) handle
        /// is disposed before its exception is thrown.
        /// </summary>
        internal static T Created<T>(uint status, T handle) where T : SafeHandle
        {
            if (status != 0)
            {
                if (handle != null)
                    handle.Dispose();
                Check(status);
            }
            Interlocked.Increment(ref LiveHandles);
            return handle;
        }

        /// <summary>
        /// A NUL-terminated UTF-8 string; <c>""</c> for NULL.
        /// </summary>
        internal static string CString(IntPtr p)
        {
            if (p == IntPtr.Zero)
                return "";
            byte* b = (byte*)p;
            int n = 0;
            while (b[n] != 0)
                n++;
            return Encoding.UTF8.GetString(b, n);
        }

        /// <summary>
        /// A UTF-8 span of <paramref name="len"/> bytes.
        /// </summary>
        internal static string Span(IntPtr p, UIntPtr len)
        {
            int n = checked((int)len.ToUInt64());
            return n == 0 ? "" : Encoding.UTF8.GetString((byte*)p, n);
        }

        /// <summary>
        /// Writes the UTF-8 of <paramref name="len"/> UTF-16 units at <paramref name="src"/> to
        /// <paramref name="dst"/>, which has room for 3 bytes a unit (a surrogate pair, two
        /// units, takes 4). Returns the bytes written, or -1 for a lone surrogate. One pass, no
        /// allocation: the batch path's encoder (the framework's strict encoder costs a second
        /// pass to size the output, and more per key on Mono).
        /// </summary>
        internal static int EncodeUtf8(char* src, int len, byte* dst)
        {
            byte* d = dst;
            for (int i = 0; i < len; i++)
            {
                uint c = src[i];
                if (c < 0x80)
                {
                    *d++ = (byte)c;
                }
                else if (c < 0x800)
                {
                    *d++ = (byte)(0xC0 | (c >> 6));
                    *d++ = (byte)(0x80 | (c & 0x3F));
                }
                else if (c < 0xD800 || c > 0xDFFF)
                {
                    *d++ = (byte)(0xE0 | (c >> 12));
                    *d++ = (byte)(0x80 | ((c >> 6) & 0x3F));
                    *d++ = (byte)(0x80 | (c & 0x3F));
                }
                else
                {
                    if (c > 0xDBFF || i + 1 >= len)
                        return -1;
                    uint low = src[i + 1];
                    if (low < 0xDC00 || low > 0xDFFF)
                        return -1;
                    i++;
                    uint cp = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                    *d++ = (byte)(0xF0 | (cp >> 18));
                    *d++ = (byte)(0x80 | ((cp >> 12) & 0x3F));
                    *d++ = (byte)(0x80 | ((cp >> 6) & 0x3F));
                    *d++ = (byte)(0x80 | (cp & 0x3F));
                }
            }
            return (int)(d - dst);
        }

        /// <summary>
        /// The UTF-8 of text, refusing a lone surrogate with <see cref="InvalidUtf8Exception"/>
        /// (the key text policy every surface shares).
        /// </summary>
        internal static byte[] Utf8(string text, string what)
        {
            if (text == null)
                throw new ArgumentNullException(what);
            try
            {
                return StrictUtf8.GetBytes(text);
            }
            catch (EncoderFallbackException)
            {
                throw new InvalidUtf8Exception(what + " holds a lone surrogate");
            }
        }
    }
}
