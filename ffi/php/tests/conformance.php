<?php

// The conformance corpus through the PHP package: every case of every vector file, with the
// loading contract of the C runner (ffi/tests/conformance.c). The file's spec builds a router; a
// case may carry its own spec (`spec`, compacted from its raw text; `spec_json`; `spec_hex`;
// `spec_repeat`), built under its `limits` or the defaults. The key is `key` (text), `key_hex` or
// `key_repeat` (bytes), or `key_utf16` (Router::routeUtf16). Expected results are node ids,
// replicas and slots, or an exception compared by class, code and kind name. Where the router
// routes on a key hash, routeHash(keyHash()) must give the same owner. Every file's plain keys
// also go through routeBatch in one call. Cases no PHP caller can express are counted as not for
// this surface: `key_type` (a key of a wrong type) and `spec_toml` (the CLI's TOML).
//
// Usage: php tests/conformance.php [VECTORS_DIR [MIN_FILES]]: the corpus is VECTORS_DIR (an
// installed corpus: `pkg-config --variable=vectorsdir keyroute`/v1), else the checkout's
// conformance/vectors/v1. Fewer than MIN_FILES files (default 100) fail, as does a file with no
// case run. Exits non-zero on any failure.

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use Keyroute\KeyrouteException;
use Keyroute\Router;

/**
 * A JSON reader that keeps the raw text of every object and array (key "\0raw"), so that specs
 * reach the library byte for byte as the file has them (numbers such as 1e400 or 2^64 - 1 survive,
 * which a decode and re-encode would not).
 */
final class RawJson
{
    private int $pos = 0;

    private function __construct(private string $text)
    {
    }

    public static function parse(string $text): mixed
    {
        $reader = new self($text);
        $value = $reader->value();
        $reader->space();
        if ($reader->pos !== strlen($text)) {
            throw new RuntimeException('trailing text at ' . $reader->pos);
        }
        return $value;
    }

    private function space(): void
    {
        $this->pos += strspn($this->text, " \t\r\n", $this->pos);
    }

    private function value(): mixed
    {
        $this->space();
        $c = $this->text[$this->pos] ?? '';
        if ($c === '{' || $c === '[') {
            return $this->container($c);
        }
        if ($c === '"') {
            return json_decode($this->stringToken(), false, 512, JSON_THROW_ON_ERROR);
        }
        $len = strspn($this->text, '+-0123456789.eEtruefalsn', $this->pos);
        $token = substr($this->text, $this->pos, $len);
        $this->pos += $len;
        return json_decode($token, false, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
    }

    private function stringToken(): string
    {
        $start = $this->pos;
        $this->pos++;
        while (true) {
            $this->pos += strcspn($this->text, '"\\', $this->pos);
            $c = $this->text[$this->pos] ?? '';
            if ($c === '') {
                throw new RuntimeException('unterminated string');
            }
            $this->pos += $c === '\\' ? 2 : 1;
            if ($c === '"') {
                return substr($this->text, $start, $this->pos - $start);
            }
        }
    }

    /** @return array<string|int, mixed> */
    private function container(string $open): array
    {
        $start = $this->pos;
        $this->pos++;
        $close = $open === '{' ? '}' : ']';
        $out = [];
        $this->space();
        if (($this->text[$this->pos] ?? '') === $close) {
            $this->pos++;
        } else {
            while (true) {
                if ($open === '{') {
                    $this->space();
                    $key = json_decode($this->stringToken(), false, 512, JSON_THROW_ON_ERROR);
                    $this->space();
                    $this->pos++; // ':'
                    $out[$key] = $this->value();
                } else {
                    $out[] = $this->value();
                }
                $this->space();
                $c = $this->text[$this->pos++] ?? '';
                if ($c === $close) {
                    break;
                }
                if ($c !== ',') {
                    throw new RuntimeException("expected , or $close at " . ($this->pos - 1));
                }
            }
        }
        $out["\0raw"] = substr($this->text, $start, $this->pos - $start);
        return $out;
    }
}

/** The raw text of a parsed value, compacted (whitespace outside strings removed). */
function compact_raw(mixed $value): string
{
    $raw = is_array($value) ? $value["\0raw"] : json_encode($value, JSON_THROW_ON_ERROR);
    return (string) preg_replace_callback('/"(?:[^"\\\\]|\\\\.)*"|\s+/s', static fn ($m) => $m[0][0] === '"' ? $m[0] : '', $raw);
}

/** @param array<string, mixed> $r */
function repeat_bytes(array $r): string
{
    $conv = !empty($r['hex']) ? 'hex2bin' : 'strval';
    return $conv($r['head'] ?? '') . str_repeat($conv($r['unit'] ?? ''), (int) ($r['times'] ?? 0)) . $conv($r['tail'] ?? '');
}

/**
 * Null when `$e` is the case's expected error, else why not.
 *
 * @param array<string, mixed> $c
 */
function expect_error(array $c, Throwable $e): ?string
{
    if (!isset($c['error'], $c['code'])) {
        return 'unexpected error ' . $e->getMessage();
    }
    if (!$e instanceof KeyrouteException) {
        return 'error ' . get_class($e) . ' is not a KeyrouteException: ' . $e->getMessage();
    }
    if ($e->getCode() !== $c['code'] || $e->kind() !== $c['error']) {
        return 'error ' . $e->getMessage() . ", expected {$c['error']} ({$c['code']})";
    }
    // The class is the kind's own.
    $class = Keyroute\Code::TABLE[$c['code']][3];
    if (!$e instanceof $class) {
        return 'error ' . get_class($e) . " is not a $class";
    }
    return null;
}

/**
 * Null when the case passes, else why not.
 *
 * @param array<string, mixed> $c
 * @param array{keys: list<string>, want: list<string>} $batch
 */
function run_case(?Router $fileRouter, array $c, array &$batch, int &$hashed): ?string
{
    $r = $fileRouter;
    $own = null;
    if (array_key_exists('spec', $c)) {
        $spec = compact_raw($c['spec']);
    } elseif (isset($c['spec_json'])) {
        $spec = $c['spec_json'];
    } elseif (isset($c['spec_hex'])) {
        $spec = (string) hex2bin($c['spec_hex']);
    } elseif (isset($c['spec_repeat'])) {
        $spec = repeat_bytes($c['spec_repeat']);
    }
    if (isset($spec)) {
        try {
            $limits = null;
            if (isset($c['limits'])) {
                $limits = json_decode(compact_raw($c['limits']), true, 512, JSON_THROW_ON_ERROR);
            }
            $own = Router::fromJson($spec, $limits);
        } catch (Throwable $e) {
            return expect_error($c, $e);
        }
        $r = $own;
    }
    if ($r === null) {
        return 'the case has no spec and the file has none';
    }
    try {
        if (isset($c['key_utf16']) && !array_key_exists('key', $c)) {
            $units = $c['key_utf16'];
            unset($units["\0raw"]);
            $node = $r->routeUtf16(array_values($units));
            return isset($c['error']) || ($c['node'] ?? null) !== $r->nodeId($node)
                ? 'node ' . $r->nodeId($node) . ', expected ' . json_encode($c['node'] ?? $c['error'] ?? null) : null;
        }
        if (array_key_exists('key', $c)) {
            $key = (string) $c['key'];
        } elseif (isset($c['key_hex'])) {
            $key = (string) hex2bin($c['key_hex']);
        } elseif (isset($c['key_repeat'])) {
            $key = repeat_bytes($c['key_repeat']);
        } else {
            return isset($c['error']) ? "expected {$c['error']}, the spec built" : null;
        }
        if (isset($c['replicas_count'])) {
            $got = $r->replicas($key, $c['replicas_count']);
            return 'expected an error, got replicas ' . json_encode($got);
        }
        $node = $r->route($key);
    } catch (Throwable $e) {
        return expect_error($c, $e);
    }
    if (isset($c['error'])) {
        return "expected error {$c['error']}, got node " . $r->nodeId($node);
    }
    if (($c['node'] ?? null) !== $r->nodeId($node)) {
        return 'node ' . $r->nodeId($node) . ', expected ' . json_encode($c['node'] ?? null);
    }
    if ($r->routeId($key) !== $c['node']) {
        return 'routeId disagrees with route';
    }
    try {
        $hash = $r->keyHash($key);
        if ($r->routeHash($hash) !== $node) {
            return "routing the key's hash $hash disagrees with route";
        }
        $hashed++;
    } catch (Keyroute\RouteHashUnsupportedException) {
    }
    if (isset($c['slot']) && $r->slot($key) !== $c['slot']) {
        return 'slot ' . json_encode($r->slot($key)) . ", expected {$c['slot']}";
    }
    if (isset($c['replicas'])) {
        $replicas = $c['replicas'];
        unset($replicas["\0raw"]);
        $got = array_map([$r, 'nodeId'], $r->replicas($key, count($replicas)));
        if ($got !== array_values($replicas)) {
            return 'replicas ' . json_encode($got) . ', expected ' . json_encode(array_values($replicas));
        }
    }
    if ($own !== null) {
        $own->close();
    } else {
        $batch['keys'][] = $key;
        $batch['want'][] = $c['node'];
    }
    return null;
}

$dir = $argv[1] ?? __DIR__ . '/../../../conformance/vectors/v1';
$minFiles = (int) ($argv[2] ?? 100);
$paths = glob(rtrim($dir, '/') . '/*.json') ?: [];
sort($paths);
if (count($paths) < $minFiles) {
    fwrite(STDERR, "conformance: the corpus at $dir has " . count($paths) . " files, at least $minFiles expected\n");
    exit(1);
}
$passed = $failed = $skipped = $hashed = $batched = $peer = 0;
$report = static function (string $what) use (&$failed): void {
    $failed++;
    if ($failed <= 40) {
        fwrite(STDERR, "FAIL $what\n");
    }
};
foreach ($paths as $path) {
    $name = basename($path);
    try {
        $f = RawJson::parse((string) file_get_contents($path));
    } catch (Throwable $e) {
        $report("$name: not a vector file: " . $e->getMessage());
        continue;
    }
    if (($f['provenance']['kind'] ?? '') === 'peer') {
        $peer++;
    }
    $cases = $f['cases'] ?? [];
    unset($cases["\0raw"]);
    $fileRouter = null;
    if (isset($f['spec'])) {
        try {
            $fileRouter = Router::fromJson(compact_raw($f['spec']));
        } catch (Throwable $e) {
            $report("$name: the file's spec does not build, so its " . count($cases) . ' cases fail: ' . $e->getMessage());
            $failed += count($cases);
            continue;
        }
    }
    $ran = 0;
    $batch = ['keys' => [], 'want' => []];
    foreach ($cases as $c) {
        if (isset($c['key_type']) || isset($c['spec_toml'])) {
            $skipped++;
            continue;
        }
        $ran++;
        $why = run_case($fileRouter, $c, $batch, $hashed);
        if ($why === null) {
            $passed++;
        } else {
            $report("$name {$c['id']}: $why");
        }
    }
    if (count($cases) === 0 || $ran + $skipped === 0) {
        $report("$name: no case ran");
    }
    if ($fileRouter !== null && $batch['keys'] !== []) {
        try {
            $got = $fileRouter->routeBatchIds($batch['keys']);
            if ($got !== $batch['want']) {
                $report("$name: routeBatch disagrees with the cases");
            } else {
                $batched += count($got);
            }
        } catch (Throwable $e) {
            $report("$name: routeBatch: " . $e->getMessage());
        }
        $fileRouter->close();
    }
}
printf(
    "conformance: %d files (%d captured from peers), %d cases passed, %d failed, %d not for this surface; "
        . "%d routed again by their key hash, %d again in batches\n",
    count($paths),
    $peer,
    $passed,
    $failed,
    $skipped,
    $hashed,
    $batched
);
exit($failed === 0 && $passed > 0 ? 0 : 1);
