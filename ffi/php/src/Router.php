<?php

declare(strict_types=1);

namespace Keyroute;

use FFI;
use FFI\CData;

/**
 * A keyroute router built from a topology spec: immutable, and it routes every key exactly as
 * every other keyroute surface does (the native algorithms and the peer presets).
 *
 * Routes answer node indices into the spec's node list (`nodeId()` gives the id) or, with the
 * `…Id` methods, the ids. A router holds C memory: `close()` releases it at once, the
 * destructor otherwise; any call after `close()` throws `ClosedException`.
 */
final class Router
{
    private ?CData $handle = null;

    /** @var list<string> node ids, by index */
    private array $ids;

    private FFI $ffi;

    private CData $node;

    /** A pointer to `$node`, made once (the out-parameter of every single-key call). */
    private CData $nodeOut;

    private function __construct(CData $handle)
    {
        $this->ffi = Library::ffi();
        $this->handle = $handle;
        $this->node = $this->ffi->new('uint32_t');
        $this->nodeOut = FFI::addr($this->node);
        $count = $this->ffi->new('uint32_t');
        Library::check($this->ffi->kr_router_node_count($handle, FFI::addr($count)));
        $id = $this->ffi->new('const char *');
        $len = $this->ffi->new('size_t');
        $this->ids = [];
        for ($i = 0; $i < $count->cdata; $i++) {
            Library::check($this->ffi->kr_router_node_id($handle, $i, FFI::addr($id), FFI::addr($len)));
            $this->ids[] = FFI::string($id, $len->cdata);
        }
    }

    /**
     * A router from a spec in JSON (`conformance/VECTORS.md`), under the default limits or the
     * `$limits` given (`['max_points' => 8388608]`).
     *
     * @param array<string, int>|null $limits
     * @throws KeyrouteException (InvalidJsonException, InvalidSpecException, …)
     */
    public static function fromJson(string $spec, ?array $limits = null): self
    {
        $ffi = Library::ffi();
        $out = $ffi->new('kr_router *');
        if ($limits === null) {
            $status = $ffi->kr_router_from_json($spec, strlen($spec), FFI::addr($out));
        } else {
            $json = json_encode((object) $limits, JSON_THROW_ON_ERROR);
            $status = $ffi->kr_router_from_json_with_limits($spec, strlen($spec), $json, strlen($json), FFI::addr($out));
        }
        Library::check($status);
        return new self($out);
    }

    /**
     * A router from a spec as a PHP array (`['algorithm' => 'ring', 'nodes' => [['id' => 'a']]]`),
     * encoded to JSON; an empty `params` array counts as an empty object.
     *
     * @param array<string, mixed> $spec
     * @param array<string, int>|null $limits
     * @throws KeyrouteException
     */
    public static function fromArray(array $spec, ?array $limits = null): self
    {
        if (array_key_exists('params', $spec) && $spec['params'] === []) {
            $spec['params'] = new \stdClass();
        }
        $json = json_encode($spec, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        return self::fromJson($json, $limits);
    }

    /** @internal the live handle */
    public function handle(): CData
    {
        if ($this->handle === null) {
            throw new ClosedException('keyroute: the router is closed');
        }
        return $this->handle;
    }

    /** Releases the router's C memory now (idempotent); later calls throw ClosedException. */
    public function close(): void
    {
        if ($this->handle !== null) {
            $this->ffi->kr_router_free($this->handle);
            $this->handle = null;
        }
    }

    /** Whether `close()` was called. */
    public function isClosed(): bool
    {
        return $this->handle === null;
    }

    public function __destruct()
    {
        $this->close();
    }

    /** The number of nodes. */
    public function nodeCount(): int
    {
        $this->handle();
        return count($this->ids);
    }

    /**
     * The id of node `$index`.
     *
     * @throws NodeOutOfRangeException
     */
    public function nodeId(int $index): string
    {
        $this->handle();
        if (!isset($this->ids[$index])) {
            throw KeyrouteException::of(Code::NODE_OUT_OF_RANGE, "node $index is not below the node count " . count($this->ids));
        }
        return $this->ids[$index];
    }

    /** @return list<string> the node ids, by index */
    public function nodeIds(): array
    {
        $this->handle();
        return $this->ids;
    }

    /**
     * The owner of `$key` (bytes), as a node index.
     *
     * @throws KeyrouteException (InvalidKeyException for a key the algorithm refuses)
     */
    public function route(string $key): int
    {
        $status = $this->ffi->kr_route($this->handle ?? $this->handle(), $key, strlen($key), $this->nodeOut);
        if ($status !== 0) {
            Library::check($status);
        }
        return $this->node->cdata;
    }

    /**
     * The owner of a text key given as UTF-16 code units (integers 0 to 65535), by the key text
     * policy every surface shares: the key is the text's UTF-8; a lone surrogate is refused.
     *
     * @param list<int> $units
     * @throws KeyrouteException (InvalidUtf8Exception for a lone surrogate)
     */
    public function routeUtf16(array $units): int
    {
        $n = count($units);
        $buffer = $this->ffi->new('uint16_t[' . max($n, 1) . ']');
        foreach (array_values($units) as $i => $unit) {
            if (!is_int($unit) || $unit < 0 || $unit > 0xffff) {
                throw KeyrouteException::of(Code::INVALID_PARAMETER, "code unit $i is not an integer from 0 to 65535");
            }
            $buffer[$i] = $unit;
        }
        Library::check($this->ffi->kr_route_utf16($this->handle(), $buffer, $n, FFI::addr($this->node)));
        return $this->node->cdata;
    }

    /**
     * The owner of `$key`, as its id.
     *
     * @throws KeyrouteException
     */
    public function routeId(string $key): string
    {
        return $this->ids[$this->route($key)];
    }

    /**
     * The owners of many keys in one call into the library, as node indices in key order.
     *
     * @param list<string> $keys
     * @return list<int>
     * @throws KeyrouteException (the first refused key's)
     */
    public function routeBatch(array $keys): array
    {
        $n = count($keys);
        if ($n === 0) {
            $this->handle();
            return [];
        }
        [$spans, $buffer] = self::pack($this->ffi, array_values($keys));
        $nodes = $this->ffi->new("uint32_t[$n]");
        $status = $this->ffi->kr_route_batch($this->handle(), $spans, $n, $nodes, $n);
        unset($buffer); // the spans point into it until here
        if ($status !== 0) {
            Library::check($status);
        }
        return array_values(unpack('V*', FFI::string($nodes, 4 * $n)));
    }

    /**
     * As `routeBatch()`, as node ids.
     *
     * @param list<string> $keys
     * @return list<string>
     * @throws KeyrouteException
     */
    public function routeBatchIds(array $keys): array
    {
        $ids = $this->ids;
        return array_map(static fn (int $i): string => $ids[$i], $this->routeBatch($keys));
    }

    /**
     * `$count` distinct nodes for `$key` in preference order (the owner first), as indices.
     *
     * @return list<int>
     * @throws KeyrouteException (ReplicasUnsupportedException, ReplicasExceedNodesException, …)
     */
    public function replicas(string $key, int $count): array
    {
        if ($count < 0) {
            throw KeyrouteException::of(Code::INVALID_PARAMETER, 'a replica count cannot be negative');
        }
        $nodes = $this->ffi->new('uint32_t[' . max($count, 1) . ']');
        Library::check($this->ffi->kr_replicas($this->handle(), $key, strlen($key), $nodes, $count));
        $out = [];
        for ($i = 0; $i < $count; $i++) {
            $out[] = $nodes[$i];
        }
        return $out;
    }

    /**
     * The slot `$key` falls in, for routers built on a slot table (`slots`, `redis-cluster`);
     * null for the others.
     *
     * @throws KeyrouteException
     */
    public function slot(string $key): ?int
    {
        $has = $this->ffi->new('bool');
        $slot = $this->ffi->new('uint32_t');
        Library::check($this->ffi->kr_slot($this->handle(), $key, strlen($key), FFI::addr($has), FFI::addr($slot)));
        return $has->cdata ? $slot->cdata : null;
    }

    /**
     * The 64-bit number the router routes `$key` on, as 16 lowercase hex digits (PHP's int is
     * signed).
     *
     * @throws KeyrouteException (RouteHashUnsupportedException for routers that route on more)
     */
    public function keyHash(string $key): string
    {
        $hash = $this->ffi->new('uint64_t');
        Library::check($this->ffi->kr_key_hash($this->handle(), $key, strlen($key), FFI::addr($hash)));
        return self::hex64($hash->cdata);
    }

    /**
     * The owner of a key hash given as 16 hex digits (`keyHash()`).
     *
     * @throws KeyrouteException
     */
    public function routeHash(string $hex): int
    {
        if (strlen($hex) !== 16 || !ctype_xdigit($hex)) {
            throw KeyrouteException::of(Code::INVALID_PARAMETER, 'a key hash is 16 hex digits');
        }
        $value = unpack('J', (string) hex2bin($hex))[1];
        Library::check($this->ffi->kr_route_hash($this->handle(), $value, FFI::addr($this->node)));
        return $this->node->cdata;
    }

    /** The fingerprint of the router's view (XXH3-64 of its canonical spec), as 16 hex digits. */
    public function fingerprint(): string
    {
        $value = $this->ffi->new('uint64_t');
        Library::check($this->ffi->kr_router_fingerprint($this->handle(), FFI::addr($value)));
        return self::hex64($value->cdata);
    }

    /** The canonical JSON of the router's spec (every default filled in, keys sorted). */
    public function canonicalJson(): string
    {
        $json = $this->ffi->new('const char *');
        $len = $this->ffi->new('size_t');
        Library::check($this->ffi->kr_router_canonical_json($this->handle(), FFI::addr($json), FFI::addr($len)));
        return FFI::string($json, $len->cdata);
    }

    /**
     * @internal `kr_key` spans over one buffer holding every key back to back. The spans are
     * written as one packed string (pointer, length: two native 64-bit words each, the
     * layout of `kr_key` on 64-bit platforms) copied in one `FFI::memcpy`.
     *
     * @param list<string> $keys
     * @return array{CData, CData|null}
     */
    public static function pack(FFI $ffi, array $keys): array
    {
        $n = count($keys);
        $words = [];
        $buffer = null;
        foreach ($keys as $i => $key) {
            if (!is_string($key)) {
                throw KeyrouteException::of(Code::INVALID_PARAMETER, "key $i is not a string");
            }
        }
        $all = implode('', $keys);
        $total = strlen($all);
        if ($total > 0) {
            $buffer = $ffi->new("uint8_t[$total]");
            FFI::memcpy($buffer, $all, $total);
            $at = $ffi->cast('uintptr_t', FFI::addr($buffer[0]))->cdata;
            foreach ($keys as $key) {
                $len = strlen($key);
                $words[] = $len > 0 ? $at : 0;
                $words[] = $len;
                $at += $len;
            }
        } else {
            $words = array_fill(0, 2 * $n, 0);
        }
        $spans = $ffi->new("kr_key[$n]");
        FFI::memcpy($spans, pack('Q*', ...$words), 16 * $n);
        return [$spans, $buffer];
    }

    private static function hex64(int $value): string
    {
        return bin2hex(pack('J', $value));
    }
}
