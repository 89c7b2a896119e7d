<?php

// For users without Composer: `require '/path/to/keyroute/autoload.php';` loads the package
// (Composer users get the same from composer.json's autoload section).

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    if (strncmp($class, 'Keyroute\\', 9) === 0) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 9)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
require_once __DIR__ . '/src/errors_gen.php';
