/* A stand-in for Windows' bcryptprimitives.dll, which wine 8.0 (Debian 12's) lacks, for
 * `make test-cross` only; nothing keyroute ships. Rust's standard library (1.78 and later) takes
 * its random numbers from ProcessPrng in that DLL on Windows 10 and later, so without it no Rust
 * program starts under wine 8 ("bcryptprimitives.dll not found"). Wine 9 has its own. This one
 * answers ProcessPrng with RtlGenRandom (advapi32's SystemFunction036), which wine implements. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
