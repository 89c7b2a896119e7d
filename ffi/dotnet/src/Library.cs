using System;

namespace Keyroute
{
    /// <summary>
    /// The C library this assembly calls: its version, and whether it serves the version the
    /// assembly was built for.
    /// </summary>
    public static partial class Library
    {
        /// <summary>
        /// The keyroute version this assembly was built for (the header's, <c>"0.1.0"</c>).
        /// </summary>
        public static string AssemblyVersion { get { return BuiltFor; } }

        /// <summary>
        /// The loaded C library's version, e.g. <c>"0.1.0"</c>.
        /// </summary>
        public static string Version { get { return Native.CString(Native.kr_version()); } }

        /// <summary>
        /// Whether the loaded C library serves this assembly: the same ABI line (the same
        /// <c>0.MINOR</c> under 0.x) and not older. Call it once at start-up.
        /// </summary>
        public static bool Compatible()
        {
            string[] parts = BuiltFor.Split('.');
            return Native.kr_version_compatible(uint.Parse(parts[0]), uint.Parse(parts[1]), uint.Parse(parts[2]));
        }

        /// <summary>
        /// The stable snake_case name of a status (<c>"ok"</c>, <c>"invalid_json"</c>, …) as the
        /// C library gives it; null for a number that is no status.
        /// </summary>
        public static string StatusName(uint status)
        {
            IntPtr p = Native.kr_status_name(status);
            return p == IntPtr.Zero ? null : Native.CString(p);
        }
    }
}
