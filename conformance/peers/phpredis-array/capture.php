<?php
// Prints RedisArray::_target() for every key of a hex key list, under each placement the
// phpredis-array preset reproduces: one JSON line per vector file (write.py writes the files).
// Usage: php capture.php <keys.hex>. No server is needed: `lazy_connect` defers connecting and
// `_target` only computes the placement.
//
// The default placement scales a hash of 0 (0xffffffff without `algorithm`) to one past the
// last host, and `_target` then reads past phpredis's host array (garbage or a crash). Those
// keys are found by `overflows()` and written as null without asking phpredis; every other
// answer must be one of the hosts, or the capture fails.

// The bytes RedisArray hashes (ra_extract_key: strchr, so a NUL byte ends the search).
function tag(string $key): string
{
    $nul = strpos($key, "\0");
    $text = $nul === false ? $key : substr($key, 0, $nul);
    $open = strpos($text, '{');
    $close = $open === false ? false : strpos($text, '}', $open + 1);
    return $close === false ? $key : substr($text, $open + 1, $close - $open - 1);
}

// Whether the default placement puts `key` at index n (ra_find_node: pos == count).
function overflows(string $key, string $algo): bool
{
    if ($algo === 'default') {
        return crc32(tag($key)) === 0xffffffff;
    }
    $digest = hash($algo, tag($key), true);
    // The first min(8, size) bytes little-endian, % 0xffffffff (2^32 ≡ 1, so lo + hi).
    $words = unpack('V2', str_pad(substr($digest, 0, 8), 8, "\0"));
    return ($words[1] + $words[2]) % 0xffffffff === 0;
}

$lines = explode("\n", file_get_contents($argv[1]));
array_pop($lines); // the text after the last newline
$keys = array_map('hex2bin', $lines);
$hosts = function (int $n): array {
    return array_map(fn ($i) => "10.0.0.$i:6379", range(1, $n));
};
$configs = [];
foreach ([1, 3, 4, 60] as $n) {
    $configs[] = ["phpredis-array-$n", $hosts($n), false, 'default'];
    $configs[] = ["phpredis-array-consistent-$n", $hosts($n), true, 'default'];
}
foreach (['md5', 'crc32b', 'fnv132', 'fnv1a32', 'fnv164', 'fnv1a64', 'joaat', 'murmur3a', 'xxh64', 'xxh3'] as $algo) {
    $configs[] = ["phpredis-array-$algo-3", $hosts(3), false, $algo];
    $configs[] = ["phpredis-array-consistent-$algo-3", $hosts(3), true, $algo];
}
// Host strings as written by users: names, unix sockets, a 60-byte host.
$named = ['redis-a', '/var/run/redis.sock', 'cache.example:6380', str_repeat('h', 55) . ':6379'];
$configs[] = ['phpredis-array-named-4', $named, false, 'default'];
$configs[] = ['phpredis-array-consistent-named-4', $named, true, 'default'];

foreach ($configs as [$file, $list, $consistent, $algo]) {
    $options = ['lazy_connect' => true, 'consistent' => $consistent];
    if ($algo !== 'default') {
        $options['algorithm'] = $algo;
    }
    $ra = new RedisArray($list, $options);
    $targets = [];
    foreach ($keys as $key) {
        if (!$consistent && overflows($key, $algo)) {
            $targets[] = null;
            continue;
        }
        $target = $ra->_target($key);
        if (!in_array($target, $list, true)) {
            fwrite(STDERR, "capture: $file: _target(" . bin2hex($key) . ") is not a host\n");
            exit(1);
        }
        $targets[] = $target;
    }
    echo json_encode([
        'file' => $file, 'hosts' => $list, 'consistent' => $consistent, 'hash' => $algo, 'targets' => $targets,
    ], JSON_UNESCAPED_SLASHES), "\n";
}
