<?php

declare(strict_types=1);

namespace Keyroute;

/** A call on a router or transition after its `close()`. */
final class ClosedException extends \LogicException
{
}
