"""The ``keyroute.Error`` hierarchy: one class per kind of the error table that every
keyroute surface shares (C status codes, JS ``error.code``, vector files).

Catch ``keyroute.Error`` for anything keyroute raises, a subclass for one kind, or the builtin
its category names (``TypeError`` for wrong types, ``ValueError`` for bad values and ranges,
``LookupError``, ``OSError``, ``MemoryError``). ``code``, ``name`` and ``category`` are stable;
messages are for people and may change.

This module holds the base class; ``_errors`` (generated from the error table) holds a subclass
per kind and ``BY_CODE``.
"""

from __future__ import annotations


class Error(Exception):
    """Base class of every error keyroute raises.

    ``code`` is the kind's stable numeric code, ``name`` its stable snake_case name and
    ``category`` the kind of mistake (``type``, ``value``, ``range``, ``lookup``, ``io``,
    ``memory``, ``internal``).
    """

    code: int = 0
    name: str = ""
    category: str = ""


def _from_code(code: int, message: str) -> Error:
    """The exception for ``code`` (called by the native module): its kind's class, or an
    ``Error`` carrying the code when this package does not know it."""
    from ._errors import BY_CODE

    cls = BY_CODE.get(code)
    if cls is not None:
        return cls(message)
    exc = Error(message)
    exc.code = code
    return exc


# Tracebacks and pickles name the public module, where every class is exported.
Error.__module__ = "keyroute"
