<?php

// php-memcached and keyroute agree over real memcached: starts four memcached servers on free
// 127.0.0.1 ports; for each configuration a PHP user sets (below), sets 100,000 keys through a
// php-memcached client so configured, and checks per server that exactly the keys keyroute's
// matching libmemcached preset routes there are there (each found, and the server's item count
// grown by keyroute's count for it, so no key is elsewhere).
// Usage: php tests/memcached.php [KEYS] (default 100000). Exits non-zero on a disagreement.

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use Keyroute\Router;

$count = (int) ($argv[1] ?? 100000);
$memcachedBin = is_executable('/usr/bin/memcached') ? '/usr/bin/memcached' : 'memcached';

/** A free TCP port on 127.0.0.1 (bound and released; memcached takes it next). */
function free_port(): int
{
    $s = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
    if ($s === false) {
        throw new RuntimeException("no free port: $error");
    }
    $port = (int) substr((string) strrchr((string) stream_socket_get_name($s, false), ':'), 1);
    fclose($s);
    return $port;
}

/**
 * Starts one memcached server per weight; returns [process, port, weight] triples.
 *
 * @param list<int> $weights
 * @return list<array{resource, int, int}>
 */
function start_servers(string $bin, array $weights): array
{
    $servers = [];
    foreach ($weights as $w) {
        $port = free_port();
        $proc = proc_open([$bin, '-U', '0', '-l', '127.0.0.1', '-p', (string) $port, '-m', '64', '-u', 'root'],
            [['file', '/dev/null', 'r'], ['file', '/dev/null', 'w'], ['file', '/dev/null', 'w']], $pipes);
        if ($proc === false) {
            throw new RuntimeException('memcached did not start');
        }
        $servers[] = [$proc, $port, $w];
    }
    foreach ($servers as [, $port]) {
        for ($i = 0; $i < 200; $i++) {
            $c = @fsockopen('127.0.0.1', $port, $errno, $error, 0.1);
            if ($c !== false) {
                fclose($c);
                continue 2;
            }
            usleep(20000);
        }
        throw new RuntimeException("memcached on port $port is not answering");
    }
    return $servers;
}

/** @param list<array{resource, int, int}> $servers */
function stop_servers(array $servers): void
{
    foreach ($servers as [$proc]) {
        proc_terminate($proc);
        proc_close($proc);
    }
}

// Each configuration: the weights, how a PHP user sets up the client, and keyroute's preset.
$configs = [
    [
        'OPT_LIBKETAMA_COMPATIBLE (Symfony\'s and most frameworks\' setting), servers weight 1',
        [1, 1, 1, 1],
        fn (Memcached $m) => $m->setOption(Memcached::OPT_LIBKETAMA_COMPATIBLE, true),
        ['algorithm' => 'libmemcached', 'params' => ['distribution' => 'ketama_weighted']],
    ],
    [
        'OPT_LIBKETAMA_COMPATIBLE, servers weighted 1, 2, 3, 4',
        [1, 2, 3, 4],
        fn (Memcached $m) => $m->setOption(Memcached::OPT_LIBKETAMA_COMPATIBLE, true),
        ['algorithm' => 'libmemcached', 'params' => ['distribution' => 'ketama_weighted']],
    ],
    [
        'OPT_LIBKETAMA_COMPATIBLE then OPT_DISTRIBUTION = DISTRIBUTION_CONSISTENT (MD5 keys, 100 MD5 points a server)',
        [1, 1, 1, 1],
        function (Memcached $m) {
            $m->setOption(Memcached::OPT_LIBKETAMA_COMPATIBLE, true);
            $m->setOption(Memcached::OPT_DISTRIBUTION, Memcached::DISTRIBUTION_CONSISTENT);
        },
        ['algorithm' => 'libmemcached', 'params' => ['distribution' => 'consistent', 'hash' => 'md5', 'weighted' => false]],
    ],
    [
        'OPT_DISTRIBUTION = DISTRIBUTION_CONSISTENT alone (one-at-a-time keys and points)',
        [1, 1, 1, 1],
        fn (Memcached $m) => $m->setOption(Memcached::OPT_DISTRIBUTION, Memcached::DISTRIBUTION_CONSISTENT),
        ['algorithm' => 'libmemcached', 'params' => ['distribution' => 'consistent', 'weighted' => false]],
    ],
    [
        'the default: DISTRIBUTION_MODULA, HASH_DEFAULT (one-at-a-time)',
        [1, 1, 1, 1],
        fn (Memcached $m) => true,
        ['algorithm' => 'libmemcached-modula'],
    ],
];
foreach ([
    'HASH_MD5' => 'md5', 'HASH_CRC' => 'crc', 'HASH_FNV1_64' => 'fnv1_64', 'HASH_FNV1A_64' => 'fnv1a_64',
    'HASH_FNV1_32' => 'fnv1_32', 'HASH_FNV1A_32' => 'fnv1a_32', 'HASH_MURMUR' => 'murmur',
] as $opt => $hash) {
    $configs[] = [
        "DISTRIBUTION_MODULA with OPT_HASH = $opt",
        [1, 1, 1, 1],
        fn (Memcached $m) => $m->setOption(Memcached::OPT_HASH, constant("Memcached::$opt")),
        ['algorithm' => 'libmemcached-modula', 'params' => ['hash' => $hash]],
    ];
}

$base = [];
for ($i = 0; $i < $count; $i++) {
    $base[] = "user:$i:" . dechex($i * 2654435761 % 4294967296);
}
$failed = 0;
// One set of servers for every configuration (the weights are the client's): each configuration
// sets keys of its own prefix, and a server's item count grows by exactly the keys it got.
$servers = start_servers($memcachedBin, [1, 1, 1, 1]);
$items = static function (array $servers): array {
    $out = [];
    foreach ($servers as [, $port]) {
        $one = new Memcached();
        $one->addServer('127.0.0.1', $port);
        $out[] = (int) ($one->getStats()["127.0.0.1:$port"]['curr_items'] ?? -1);
        $one->quit();
    }
    return $out;
};
try {
    foreach ($configs as $c => [$what, $weights, $setup, $spec]) {
        $before = $items($servers);
        $keys = array_map(static fn (string $k): string => "c$c:$k", $base);
        $client = new Memcached();
        if ($setup($client) === false) {
            throw new RuntimeException("php-memcached refused the options of: $what");
        }
        // Sets without waiting for each reply (placement is unchanged); the stats request
        // after them, on the same connections, returns once every set was processed.
        $client->setOption(Memcached::OPT_NOREPLY, true);
        $list = array_map(fn ($s, $w) => ['127.0.0.1', $s[1], $w], $servers, $weights);
        if (!$client->addServers($list)) {
            throw new RuntimeException('addServers failed');
        }
        foreach (array_chunk($keys, 1000) as $chunk) {
            if (!$client->setMulti(array_fill_keys($chunk, 'v'))) {
                throw new RuntimeException('setMulti failed: ' . $client->getResultMessage());
            }
        }
        $client->setOption(Memcached::OPT_NOREPLY, false);
        if (count((array) $client->getStats()) !== count($servers)) {
            throw new RuntimeException('a server did not answer after the sets');
        }
        $spec['nodes'] = array_map(
            fn ($s, $w) => ['id' => "127.0.0.1:{$s[1]}", 'host' => '127.0.0.1', 'port' => $s[1], 'weight' => $w],
            $servers,
            $weights
        );
        $router = Router::fromArray($spec);
        $owners = $router->routeBatch($keys);
        $after = $items($servers);
        $byServer = array_fill(0, count($servers), []);
        foreach ($owners as $i => $owner) {
            $byServer[$owner][] = $keys[$i];
        }
        $bad = 0;
        $counts = [];
        foreach ($servers as $n => [, $port]) {
            $one = new Memcached();
            $one->addServer('127.0.0.1', $port);
            $found = 0;
            foreach (array_chunk($byServer[$n], 1000) as $chunk) {
                $found += count((array) $one->getMulti($chunk));
            }
            $one->quit();
            $added = $after[$n] - $before[$n];
            if ($found !== count($byServer[$n]) || $added !== count($byServer[$n])) {
                $bad++;
            }
            $counts[] = "$found/$added";
        }
        $client->quit();
        $router->close();
        echo ($bad === 0 ? 'ok' : 'FAILED'), ": php-memcached $what: $count keys; per server found/added as keyroute routes them: "
            . implode(', ', $counts) . "\n";
        $failed += $bad > 0 ? 1 : 0;
    }
} finally {
    stop_servers($servers);
}
echo 'php-memcached: ' . count($configs) . " configurations, $failed disagree\n";
exit($failed === 0 ? 0 : 1);
