<?php

// The PHP package's speed against PHP's own placement, measured in one run (not a test):
// keyroute per call (Router::route) and batched (Router::routeBatch, 1,000 keys a call) with the
// phpredis-array consistent preset, against phpredis's RedisArray::_target (the same placement,
// in C inside the extension) and a plain PHP sorted ring written here (160 crc32 points per
// node, binary search), at N = 10, 100 and 1000 nodes, alternating within each pass. Prints a Markdown table of medians (ns per
// key over the passes) and ratios (the baseline's time / keyroute's: above 1, keyroute is faster).
// Before timing, checks that keyroute and _target agree on every key.
//
// Usage: php bench.php [KEYS [PASSES]]   (100,000 keys, 7 passes by default); bench.sh runs it
// against the release library.

declare(strict_types=1);

require __DIR__ . '/autoload.php';

use Keyroute\Router;

$count = (int) ($argv[1] ?? 100000);
$passes = (int) ($argv[2] ?? 7);
$keys = [];
for ($i = 0; $i < $count; $i++) {
    $keys[] = "user:$i";
}

/** A plain PHP consistent-hash ring: sorted crc32 points, binary search, wrap to the first. */
final class PhpRing
{
    /** @var list<int> */
    private array $points = [];

    /** @var list<int> */
    private array $owners = [];

    /** @param list<string> $nodes */
    public function __construct(array $nodes)
    {
        $pairs = [];
        foreach ($nodes as $i => $node) {
            for ($j = 0; $j < 160; $j++) {
                $pairs[] = [crc32("$node-$j"), $i];
            }
        }
        sort($pairs);
        foreach ($pairs as [$p, $o]) {
            $this->points[] = $p;
            $this->owners[] = $o;
        }
    }

    public function route(string $key): int
    {
        $h = crc32($key);
        $lo = 0;
        $hi = count($this->points);
        while ($lo < $hi) {
            $mid = ($lo + $hi) >> 1;
            if ($this->points[$mid] < $h) {
                $lo = $mid + 1;
            } else {
                $hi = $mid;
            }
        }
        return $this->owners[$lo === count($this->points) ? 0 : $lo];
    }
}

/**
 * ns per key of each function over the keys, the median of the passes; the functions alternate
 * within each pass, so a change in the machine's load shifts them all alike.
 *
 * @param array<string, callable> $fs
 * @return array<string, float>
 */
function medians_ns(int $passes, int $count, array $fs): array
{
    $times = [];
    for ($p = 0; $p < $passes; $p++) {
        foreach ($fs as $name => $f) {
            $t = hrtime(true);
            $f();
            $times[$name][] = (hrtime(true) - $t) / $count;
        }
    }
    $out = [];
    foreach ($times as $name => $list) {
        sort($list);
        $out[$name] = $list[intdiv($passes, 2)];
    }
    return $out;
}

$jit = (function_exists('opcache_get_status') && (opcache_get_status(false)['jit']['on'] ?? false)) ? 'JIT on' : 'no JIT';
echo "PHP " . PHP_VERSION . " ($jit), phpredis " . phpversion('redis') . ", keyroute " . Keyroute\Library::version()
    . "; $count keys, median of $passes passes, ns per key; load average " . implode(' ', array_map(
        fn ($l) => sprintf('%.2f', $l),
        sys_getloadavg() ?: []
    )) . "\n\n";
echo "| N | keyroute route() | keyroute routeBatch() | RedisArray _target() | PHP sorted ring | _target / route | _target / batch | PHP ring / route | PHP ring / batch |\n";
echo "|---|---|---|---|---|---|---|---|---|\n";
foreach ([10, 100, 1000] as $n) {
    $hosts = array_map(fn ($i) => "10.0." . intdiv($i, 250) . '.' . ($i % 250 + 1) . ':6379', range(0, $n - 1));
    $router = Router::fromArray([
        'algorithm' => 'phpredis-array', 'params' => ['consistent' => true],
        'nodes' => array_map(fn ($h) => ['id' => $h], $hosts),
    ]);
    $ra = new RedisArray($hosts, ['lazy_connect' => true, 'consistent' => true]);
    $ring = new PhpRing($hosts);
    $ids = $router->nodeIds();
    foreach ($router->routeBatch($keys) as $i => $owner) {
        if ($ids[$owner] !== $ra->_target($keys[$i])) {
            fwrite(STDERR, "bench: keyroute and RedisArray disagree on {$keys[$i]} at N = $n\n");
            exit(1);
        }
    }
    $chunks = array_chunk($keys, 1000);
    ['route' => $route, 'batch' => $batch, 'target' => $target, 'php' => $php] = medians_ns($passes, $count, [
        'route' => function () use ($router, $keys) {
            foreach ($keys as $k) {
                $router->route($k);
            }
        },
        'batch' => function () use ($router, $chunks) {
            foreach ($chunks as $c) {
                $router->routeBatch($c);
            }
        },
        'target' => function () use ($ra, $keys) {
            foreach ($keys as $k) {
                $ra->_target($k);
            }
        },
        'php' => function () use ($ring, $keys) {
            foreach ($keys as $k) {
                $ring->route($k);
            }
        },
    ]);
    printf(
        "| %d | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n",
        $n, $route, $batch, $target, $php, $target / $route, $target / $batch, $php / $route, $php / $batch
    );
    $router->close();
}
