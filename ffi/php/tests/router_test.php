<?php

// The PHP package's own tests: every method of Router and Transition, every error kind's class
// and code, and the close discipline (calls after close() throw, close() is idempotent, the
// destructor releases). Plain PHP: each check that fails is printed; exits non-zero on any.
// Usage: php tests/router_test.php (the library as Keyroute\Library finds it).

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

use Keyroute\ClosedException;
use Keyroute\Code;
use Keyroute\KeyrouteException;
use Keyroute\Router;
use Keyroute\Transition;

$checks = 0;
$failures = 0;
function check(bool $ok, string $what): void
{
    global $checks, $failures;
    $checks++;
    if (!$ok) {
        $failures++;
        fwrite(STDERR, "FAIL $what\n");
    }
}

/** The exception `$f` throws, or null. */
function thrown(callable $f): ?Throwable
{
    try {
        $f();
    } catch (Throwable $e) {
        return $e;
    }
    return null;
}

$three = ['algorithm' => 'ring', 'nodes' => [['id' => 'cache-a'], ['id' => 'cache-b'], ['id' => 'cache-c']]];
$r = Router::fromArray($three);
check($r->nodeCount() === 3 && $r->nodeIds() === ['cache-a', 'cache-b', 'cache-c'], 'node ids');
check($r->nodeId(2) === 'cache-c', 'nodeId');
check(thrown(fn () => $r->nodeId(3)) instanceof Keyroute\NodeOutOfRangeException, 'nodeId out of range');
$keys = [];
for ($i = 0; $i < 1000; $i++) {
    $keys[] = "user:$i";
}
$keys[] = '';
$keys[] = "\x00\xff binary";
$one = array_map([$r, 'route'], $keys);
check($r->routeBatch($keys) === $one, 'routeBatch agrees with route');
check($r->routeBatchIds($keys) === array_map([$r, 'routeId'], $keys), 'routeBatchIds agrees with routeId');
check($r->routeBatch([]) === [], 'empty batch');
check($r->routeBatch(['x' => 'user:1', 'y' => 'user:2']) === [$r->route('user:1'), $r->route('user:2')], 'batch of a map');
check(thrown(fn () => $r->routeBatch(['a', 5])) instanceof Keyroute\InvalidParameterException, 'batch with a non-string');
check(count(array_unique($one)) === 3, 'every node owns keys');
$rep = $r->replicas('user:1', 3);
check($rep[0] === $r->route('user:1') && count(array_unique($rep)) === 3, 'replicas');
check($r->replicas('user:1', 0) === [], 'zero replicas');
check(thrown(fn () => $r->replicas('user:1', 4)) instanceof Keyroute\ReplicasExceedNodesException, 'too many replicas');
check(thrown(fn () => $r->replicas('user:1', -1)) instanceof Keyroute\InvalidParameterException, 'negative replicas');
check($r->slot('user:1') === null, 'a ring has no slots');
check($r->routeHash($r->keyHash('user:1')) === $r->route('user:1'), 'routeHash(keyHash)');
check(thrown(fn () => $r->routeHash('xyz')) instanceof Keyroute\InvalidParameterException, 'a bad hash');
check(preg_match('/^[0-9a-f]{16}$/', $r->fingerprint()) === 1, 'fingerprint');
$canonical = $r->canonicalJson();
check(Router::fromJson($canonical)->fingerprint() === $r->fingerprint(), 'canonical JSON rebuilds the same router');
check($r->routeUtf16(array_map('ord', str_split('user:1'))) === $r->route('user:1'), 'routeUtf16');
check(thrown(fn () => $r->routeUtf16([0xd800])) instanceof Keyroute\InvalidUtf8Exception, 'lone surrogate');

$slots = Router::fromArray(['algorithm' => 'redis-cluster', 'nodes' => [
    ['id' => 'r1', 'slots' => [[0, 8191]]], ['id' => 'r2', 'slots' => [[8192, 16383]]],
]]);
check($slots->slot('foo') === 12182 && $slots->routeId('foo') === 'r2', 'redis-cluster slot');
check(thrown(fn () => $slots->replicas('foo', 1)) instanceof Keyroute\ReplicasUnsupportedException, 'no replicas');

// Errors: the kind's class, the stable code, its name and category.
$e = thrown(fn () => Router::fromJson('{'));
check($e instanceof Keyroute\InvalidJsonException && $e->getCode() === Code::INVALID_JSON, 'invalid JSON');
check($e instanceof KeyrouteException && $e->kind() === 'invalid_json' && $e->category() === 'value', 'kind and category');
check(str_contains($e->getMessage(), 'invalid_json'), 'the message names the kind');
$e = thrown(fn () => Router::fromArray(['algorithm' => 'nope', 'nodes' => [['id' => 'a']]]));
check($e instanceof Keyroute\UnknownAlgorithmException, 'unknown algorithm');
$e = thrown(fn () => Router::fromArray(['algorithm' => 'ring', 'nodes' => [['id' => 'a'], ['id' => 'a']]]));
check($e instanceof Keyroute\DuplicateNodeIdException, 'duplicate id');
$e = thrown(fn () => Router::fromArray(['algorithm' => 'guava', 'params' => ['key_hash' => 'u64be'], 'nodes' => [['id' => 'a']]])->route('short'));
check($e instanceof Keyroute\InvalidKeyException && $e->getCode() === Code::INVALID_KEY, 'invalid key');
$e = thrown(fn () => Router::fromJson('{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"}]}', ['max_nodes' => 1]));
check($e instanceof Keyroute\TooManyNodesException, 'limits are applied');
check(Router::fromArray(['algorithm' => 'ring', 'params' => [], 'nodes' => [['id' => 'a']]])->nodeCount() === 1, 'empty params');
foreach (Code::all() as $code) {
    $class = Code::TABLE[$code][3];
    $x = KeyrouteException::of($code, 'm');
    check(get_class($x) === $class && $x->getCode() === $code && $x->kind() === Code::name($code), "kind $code");
    check(Code::description($code) !== '' && Code::category($code) !== '', "code $code has a row");
}
check(count(Code::all()) >= 30 && Code::name(999999) === '', 'the code table');

// Close discipline.
$c = Router::fromArray($three);
$c->close();
$c->close();
check($c->isClosed(), 'closed');
foreach ([
    fn () => $c->route('a'), fn () => $c->routeId('a'), fn () => $c->routeBatch(['a']), fn () => $c->routeBatch([]),
    fn () => $c->replicas('a', 1), fn () => $c->slot('a'), fn () => $c->keyHash('a'), fn () => $c->nodeIds(),
    fn () => $c->nodeCount(), fn () => $c->nodeId(0), fn () => $c->fingerprint(), fn () => $c->canonicalJson(),
    fn () => $c->routeUtf16([97]), fn () => new Transition($c, $r),
] as $i => $call) {
    check(thrown($call) instanceof ClosedException, "call $i after close");
}
for ($i = 0; $i < 2000; $i++) {
    $tmp = Router::fromArray($three); // released by the destructor
    $tmp->route('k');
}
unset($tmp);

// Transitions.
$four = $three;
$four['nodes'][] = ['id' => 'cache-d'];
$to = Router::fromArray($four);
$t = new Transition($r, $to, 0.0);
check($t->nodeIds() === ['cache-a', 'cache-b', 'cache-c', 'cache-d'] && $t->nodeCount() === 4, 'transition nodes');
check($t->progress() === 0.0, 'progress 0');
$moved = 0;
foreach ($keys as $k) {
    check($t->routeId($k) === $r->routeId($k), 'at 0, as A');
    $moved += $r->routeId($k) !== $to->routeId($k) ? 1 : 0;
}
$t->setProgress(1.0);
foreach ($keys as $k) {
    check($t->routeId($k) === $to->routeId($k), 'at 1, as B');
    $p = $t->routeWithFallback($k);
    $cut = $r->routeId($k) !== $to->routeId($k);
    check($t->hasCutOver($k) === $cut || !$cut, 'cut over');
    check($cut ? $t->nodeId((int) $p['previous']) === $r->routeId($k) : $p['previous'] === null, 'fallback');
}
check($moved > 0, 'some keys move to the new node');
$t->setProgress(0.5);
check($t->progress() === 0.5, 'progress 0.5');
check(thrown(fn () => $t->setProgress(1.5)) instanceof Keyroute\InvalidParameterException, 'progress out of range');
check(thrown(fn () => new Transition($r, $to, -1.0)) instanceof Keyroute\InvalidParameterException, 'new: progress');
check(thrown(fn () => $t->nodeId(4)) instanceof Keyroute\NodeOutOfRangeException, 'transition nodeId');
$t->close();
$t->close();
foreach ([fn () => $t->route('a'), fn () => $t->progress(), fn () => $t->setProgress(0.1), fn () => $t->hasCutOver('a'),
    fn () => $t->routeWithFallback('a'), fn () => $t->nodeIds(), fn () => $t->nodeId(0)] as $i => $call) {
    check(thrown($call) instanceof ClosedException, "transition call $i after close");
}
check(thrown(fn () => Keyroute\Library::load()) instanceof LogicException, 'load twice');
check(preg_match('/^\d+\.\d+\.\d+/', Keyroute\Library::version()) === 1, 'version');

echo "router_test: $checks checks, $failures failed\n";
exit($failures === 0 ? 0 : 1);
