<?php

declare(strict_types=1);

namespace Keyroute;

/**
 * A failed keyroute call. `getCode()` is the stable code of keyroute's error table (the same
 * number on every surface; constants in `Keyroute\Code`), and the class is the kind's own
 * (`InvalidSpecException` for `invalid_spec`, …), so callers catch either.
 */
class KeyrouteException extends \RuntimeException
{
    /** @internal the exception of `$code`'s kind. */
    public static function of(int $code, string $message): self
    {
        $class = Code::TABLE[$code][3] ?? self::class;
        return new $class($message, $code);
    }

    /** The kind's stable snake_case name (`"invalid_spec"`), as vector files write it. */
    public function kind(): string
    {
        return Code::name($this->getCode());
    }

    /** The kind's category (`"value"`, `"range"`, `"lookup"`, `"type"`, `"io"`, …). */
    public function category(): string
    {
        return Code::category($this->getCode());
    }

    /** @param string $message the library's message (for people; the code is the contract) */
    final public function __construct(string $message, int $code)
    {
        $name = Code::TABLE[$code][0] ?? 'unknown code';
        parent::__construct("keyroute: $name ($code): $message", $code);
    }
}
