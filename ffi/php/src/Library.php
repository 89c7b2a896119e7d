<?php

declare(strict_types=1);

namespace Keyroute;

use FFI;

/**
 * The C library (libkeyroute) through PHP's FFI: loaded once per process, on first use.
 *
 * The library is the file named by the `KEYROUTE_LIBRARY` environment variable (a path to
 * `libkeyroute.so`), else `libkeyroute.so.0.1` (the SONAME) found by the dynamic loader (an install in the
 * loader's path, or `LD_LIBRARY_PATH`). `Library::load()` chooses another file explicitly; call
 * it before the first router is built.
 */
final class Library
{
    /** The library's SONAME: the ABI line this package was written for. */
    public const SONAME = 'libkeyroute.so.0.1';

    /**
     * The declarations this package calls, as keyroute.h declares them except that key and text
     * spans are `const char *` (the same ABI as `const uint8_t *`), so that PHP strings pass
     * without a copy. ffi/php/test.sh checks them against keyroute.h with a C compiler.
     */
    public const CDEF = <<<'C'
        typedef uint32_t kr_status;
        typedef struct kr_router kr_router;
        typedef struct kr_transition kr_transition;
        typedef struct { const uint8_t *ptr; size_t len; } kr_key;
        typedef struct { uint32_t owner; uint32_t previous; bool has_previous; } kr_placement;
        const char *kr_last_error_message(void);
        const char *kr_status_name(uint32_t status);
        const char *kr_version(void);
        bool kr_version_compatible(uint32_t major, uint32_t minor, uint32_t patch);
        kr_status kr_router_from_json(const char *json, size_t json_len, kr_router **router);
        kr_status kr_router_from_json_with_limits(const char *json, size_t json_len, const char *limits_json, size_t limits_len, kr_router **router);
        void kr_router_free(kr_router *router);
        kr_status kr_route(const kr_router *router, const char *key, size_t key_len, uint32_t *node);
        kr_status kr_route_utf16(const kr_router *router, const uint16_t *units, size_t units_len, uint32_t *node);
        kr_status kr_route_batch(const kr_router *router, const kr_key *keys, size_t key_count, uint32_t *nodes, size_t nodes_len);
        kr_status kr_replicas(const kr_router *router, const char *key, size_t key_len, uint32_t *nodes, size_t count);
        kr_status kr_slot(const kr_router *router, const char *key, size_t key_len, bool *has_slot, uint32_t *slot);
        kr_status kr_router_node_count(const kr_router *router, uint32_t *count);
        kr_status kr_router_node_id(const kr_router *router, uint32_t index, const char **id, size_t *id_len);
        kr_status kr_router_fingerprint(const kr_router *router, uint64_t *fingerprint);
        kr_status kr_router_canonical_json(const kr_router *router, const char **json, size_t *json_len);
        kr_status kr_key_hash(const kr_router *router, const char *key, size_t key_len, uint64_t *hash);
        kr_status kr_route_hash(const kr_router *router, uint64_t hash, uint32_t *node);
        kr_status kr_transition_new(const kr_router *from, const kr_router *to, double progress, kr_transition **transition);
        void kr_transition_free(kr_transition *transition);
        kr_status kr_transition_progress(const kr_transition *transition, double *progress);
        kr_status kr_transition_set_progress(const kr_transition *transition, double progress);
        kr_status kr_transition_route(const kr_transition *transition, const char *key, size_t key_len, uint32_t *node);
        kr_status kr_transition_route_with_fallback(const kr_transition *transition, const char *key, size_t key_len, kr_placement *placement);
        kr_status kr_transition_has_cut_over(const kr_transition *transition, const char *key, size_t key_len, bool *cut_over);
        kr_status kr_transition_node_count(const kr_transition *transition, uint32_t *count);
        kr_status kr_transition_node_id(const kr_transition *transition, uint32_t index, const char **id, size_t *id_len);
        C;

    private static ?FFI $ffi = null;

    /**
     * Loads the library from `$path` (default: as the class describes). Loading twice is an
     * error: routers already built hold the first library.
     *
     * @throws \LogicException when the library is already loaded
     * @throws \FFI\Exception when the file cannot be loaded
     */
    public static function load(?string $path = null): void
    {
        if (self::$ffi !== null) {
            throw new \LogicException('keyroute: the C library is already loaded');
        }
        $env = getenv('KEYROUTE_LIBRARY');
        $path ??= ($env !== false && $env !== '') ? $env : self::SONAME;
        $ffi = FFI::cdef(self::CDEF, $path);
        if (!$ffi->kr_version_compatible(0, 1, 0)) {
            throw new \LogicException('keyroute: ' . $path . ' is version ' . (string) $ffi->kr_version()
                . ', which does not serve this package (written for 0.1)');
        }
        self::$ffi = $ffi;
    }

    /** @internal the loaded library (loading it on first use). */
    public static function ffi(): FFI
    {
        if (self::$ffi === null) {
            self::load();
        }
        /** @var FFI */
        return self::$ffi;
    }

    /** The library's version, e.g. `"0.1.0"`. */
    public static function version(): string
    {
        return (string) self::ffi()->kr_version();
    }

    /**
     * @internal throws the exception of `$status`'s kind, with the library's message.
     *
     * @throws KeyrouteException
     */
    public static function check(int $status): void
    {
        if ($status !== 0) {
            throw KeyrouteException::of($status, (string) self::ffi()->kr_last_error_message());
        }
    }
}
