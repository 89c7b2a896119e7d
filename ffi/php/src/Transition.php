<?php

declare(strict_types=1);

namespace Keyroute;

use FFI;
use FFI\CData;

/**
 * A gradual change from one router (view A) to another (view B): at progress 0 every key routes
 * as in A, at 1 as in B, and in between the keys that move cut over in a fixed order.
 *
 * Node indices are the transition's own: A's nodes in A's order, then B's nodes that A lacks.
 * The transition copies what it needs of both routers (they may be closed afterwards).
 * `close()` releases its C memory; any call after it throws `ClosedException`.
 */
final class Transition
{
    private ?CData $handle = null;

    /** @var list<string> */
    private array $ids;

    private FFI $ffi;

    private CData $node;

    /**
     * @throws KeyrouteException (InvalidParameterException for a progress outside [0, 1])
     */
    public function __construct(Router $from, Router $to, float $progress = 0.0)
    {
        $this->ffi = Library::ffi();
        $out = $this->ffi->new('kr_transition *');
        Library::check($this->ffi->kr_transition_new($from->handle(), $to->handle(), $progress, FFI::addr($out)));
        $this->handle = $out;
        $this->node = $this->ffi->new('uint32_t');
        $count = $this->ffi->new('uint32_t');
        Library::check($this->ffi->kr_transition_node_count($out, FFI::addr($count)));
        $id = $this->ffi->new('const char *');
        $len = $this->ffi->new('size_t');
        $this->ids = [];
        for ($i = 0; $i < $count->cdata; $i++) {
            Library::check($this->ffi->kr_transition_node_id($out, $i, FFI::addr($id), FFI::addr($len)));
            $this->ids[] = FFI::string($id, $len->cdata);
        }
    }

    private function handle(): CData
    {
        if ($this->handle === null) {
            throw new ClosedException('keyroute: the transition is closed');
        }
        return $this->handle;
    }

    /** Releases the transition's C memory now (idempotent). */
    public function close(): void
    {
        if ($this->handle !== null) {
            $this->ffi->kr_transition_free($this->handle);
            $this->handle = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    /** The progress, in [0, 1]. */
    public function progress(): float
    {
        $p = $this->ffi->new('double');
        Library::check($this->ffi->kr_transition_progress($this->handle(), FFI::addr($p)));
        return $p->cdata;
    }

    /**
     * Moves the transition to `$progress` in [0, 1].
     *
     * @throws KeyrouteException (InvalidParameterException outside [0, 1])
     */
    public function setProgress(float $progress): void
    {
        Library::check($this->ffi->kr_transition_set_progress($this->handle(), $progress));
    }

    /**
     * The owner of `$key` at the current progress, as a transition node index.
     *
     * @throws KeyrouteException
     */
    public function route(string $key): int
    {
        Library::check($this->ffi->kr_transition_route($this->handle(), $key, strlen($key), FFI::addr($this->node)));
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
     * The owner now and, when the key has cut over to another node, the node that owned it
     * before (where to read on a miss), else null.
     *
     * @return array{owner: int, previous: int|null}
     * @throws KeyrouteException
     */
    public function routeWithFallback(string $key): array
    {
        $p = $this->ffi->new('kr_placement');
        Library::check($this->ffi->kr_transition_route_with_fallback($this->handle(), $key, strlen($key), FFI::addr($p)));
        return ['owner' => $p->owner, 'previous' => $p->has_previous ? $p->previous : null];
    }

    /** Whether `$key` has cut over to its owner in view B. */
    public function hasCutOver(string $key): bool
    {
        $b = $this->ffi->new('bool');
        Library::check($this->ffi->kr_transition_has_cut_over($this->handle(), $key, strlen($key), FFI::addr($b)));
        return $b->cdata;
    }

    /** The number of the transition's nodes. */
    public function nodeCount(): int
    {
        $this->handle();
        return count($this->ids);
    }

    /**
     * The id of transition node `$index`.
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

    /** @return list<string> */
    public function nodeIds(): array
    {
        $this->handle();
        return $this->ids;
    }
}
