# SPDX-License-Identifier: MIT
"""kyu's errors as Python exceptions.

Every failure of the engine raises a subclass of :class:`KyuError` carrying kyu's own message (which
names the argument and the value, as ``kyu_world_last_error`` does in C) and the status code. The
subclasses also derive from the built-in exception a Python programmer would catch: a bad value is a
``ValueError``, a removed body's handle a ``LookupError``, an unreadable file an ``OSError``.
"""
from __future__ import annotations

from typing import Dict, Type

from ._kyu import ffi, lib


class KyuError(Exception):
    """An error reported by kyu.

    ``status`` is the name of the C status code (``"KYU_ERR_RADIUS"``...), ``code`` its value; the
    message is kyu's sentence for the code followed by the detail.
    """

    def __init__(self, message: str, status: str = "", code: int = -1) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class InvalidArgumentError(KyuError, ValueError):
    """A value kyu refuses: NaN or infinite, a radius or mass <= 0, restitution outside [0, 1]..."""


class StaleHandleError(KyuError, LookupError):
    """The handle names a removed body or collider, or one of another world."""


class CapacityError(KyuError):
    """The world's ``max_bodies`` or ``max_colliders`` is reached."""


class LockedError(KyuError, RuntimeError):
    """The world is in the middle of a step (another thread is stepping it)."""


class KyuMemoryError(KyuError, MemoryError):
    """An allocation failed inside kyu."""


class KyuIOError(KyuError, OSError):
    """A file could not be opened, read or written."""


class SnapshotError(KyuError, ValueError):
    """A snapshot is truncated, corrupt, or of another format version; the world is unchanged."""


class SceneError(KyuError, ValueError):
    """A scene file was refused; the message is the loader's line (file, key path, what is wrong)."""


_CLASSES: Dict[str, Type[KyuError]] = {
    "KYU_ERR_NULL": InvalidArgumentError,
    "KYU_ERR_NOT_FINITE": InvalidArgumentError,
    "KYU_ERR_RADIUS": InvalidArgumentError,
    "KYU_ERR_MASS": InvalidArgumentError,
    "KYU_ERR_RESTITUTION": InvalidArgumentError,
    "KYU_ERR_FRICTION": InvalidArgumentError,
    "KYU_ERR_DAMPING": InvalidArgumentError,
    "KYU_ERR_INVALID_DEF": InvalidArgumentError,
    "KYU_ERR_INVALID_ARGUMENT": InvalidArgumentError,
    "KYU_ERR_STALE_HANDLE": StaleHandleError,
    "KYU_ERR_FOREIGN_HANDLE": StaleHandleError,
    "KYU_ERR_CAPACITY": CapacityError,
    "KYU_ERR_OUT_OF_MEMORY": KyuMemoryError,
    "KYU_ERR_LOCKED": LockedError,
    "KYU_ERR_IO": KyuIOError,
    "KYU_ERR_BAD_SNAPSHOT": SnapshotError,
}

_NAMES: Dict[int, str] = {
    getattr(lib, name): name for name in ["KYU_OK"] + list(_CLASSES)
}


def error_for(code: int, detail: str) -> KyuError:
    """The exception for a kyu status code and a detail (usually kyu_world_last_error)."""
    name = _NAMES.get(code, f"kyu status {code}")
    sentence = ffi.string(lib.kyu_status_string(code)).decode()
    message = detail if detail.startswith(sentence) else f"{sentence}: {detail}" if detail else sentence
    return _CLASSES.get(name, KyuError)(message, name, code)
