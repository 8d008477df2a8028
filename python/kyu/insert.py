# SPDX-License-Identifier: MIT
"""Insertion (kyu's insert.h): an :class:`Inserter` fills a region of a world with bodies whose
radii follow a distribution, at a rate, to a count or to a volume fraction, never overlapping what
is there, the same bodies for the same seed. The region and the radius take the keys of a scene
file's ``insert`` generator (docs/scenes.md)."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._kyu import ffi, lib
from .errors import InvalidArgumentError, KyuError, error_for
from .world import Vec3, World, _vec

_SHAPES = {"box": 1, "cylinder": 2, "rectangle": 3}
_REGION_KEYS = {"box": {"shape", "center", "half_extents", "rotation"},
                "cylinder": {"shape", "center", "radius", "half_height", "rotation"},
                "rectangle": {"shape", "center", "half_extents", "rotation"}}
_DISTRIBUTIONS = {"uniform": ({"min", "max"}, 1), "normal": ({"mean", "sigma", "min", "max"}, 2),
                  "lognormal": ({"median", "sigma", "min", "max"}, 3), "mixture": ({"radii", "weights", "by"}, 4)}


def _keys(given: Mapping[str, Any], allowed: set, what: str) -> None:
    extra = sorted(set(given) - allowed)
    if extra:
        raise InvalidArgumentError(f"{what}: unknown key {extra[0]!r} (known here: {', '.join(sorted(allowed))})")


class Inserter:
    """Inserts bodies into `world` (kyu_inserter_create); call :meth:`run` between steps with the
    time since it began (a scene's inserters run themselves in ``World.step``).

    >>> ins = kyu.Inserter(w, region={"shape": "cylinder", "center": (0, 1.1, 0), "radius": 0.22,
    ...                               "half_height": 0.15},
    ...                    radius={"distribution": "lognormal", "median": 0.012, "sigma": 0.25,
    ...                            "min": 0.007, "max": 0.02},
    ...                    density=2500, mass_rate=1.5, count=1000, velocity=(0, -0.5, 0), cone=10)
    >>> for k in range(240):
    ...     ins.run(k * w.fixed_dt)
    ...     w.step()

    `region`: ``{"shape": "box", "center", "half_extents": (x, y, z)}``, ``{"shape": "cylinder",
    "center", "radius", "half_height"}`` (axis y) or ``{"shape": "rectangle", "center",
    "half_extents": (x, z)}`` (a face, normal y), each with an optional ``"rotation"`` quaternion
    (x, y, z, w). `radius`: a number (every body), or ``{"distribution": "uniform", "min", "max"}``,
    ``"normal"`` (``mean``, ``sigma``, ``min``, ``max``), ``"lognormal"`` (``median``, ``sigma`` of ln
    r, ``min``, ``max``) or ``"mixture"`` (``radii``, ``weights``, ``by``: ``"number"`` or
    ``"mass"``). `body`: ``add_body``'s material keywords. The end: `count`, `volume_fraction`, or a
    `rate` (bodies/s) or `mass_rate` (kg/s). Bad settings raise with kyu's message.
    """

    def __init__(self, world: World, *, region: Mapping[str, Any], radius: Union[float, Mapping[str, Any], None] = None,
                 density: float = 0.0, velocity: Vec3 = (0.0, 0.0, 0.0), cone: float = 0.0, count: int = 0,
                 volume_fraction: float = 0.0, rate: float = 0.0, mass_rate: float = 0.0, attempts: int = 100,
                 seed: int = 1, body: Optional[Dict[str, Any]] = None) -> None:
        self._ins: Any = ffi.NULL
        self._world = world
        d = ffi.new("kyupy_inserter_def *")
        lib.kyupy_inserter_def_default(d)
        kw = dict(body or {})
        if isinstance(radius, (int, float)):
            kw["radius"] = radius
        d.body = world._body_def(dict(position=(0, 0, 0), **kw))[0]
        self._keep: list = []  # the mixture's arrays live as long as the call that copies them
        try:
            self._region(d, region)
            if radius is not None and not isinstance(radius, (int, float)):
                self._size(d, radius)
        except KeyError as e:
            raise InvalidArgumentError(f"missing key {e.args[0]!r} in the region or the radius") from None
        d.density, d.velocity, d.cone_degrees = density, _vec(velocity, "velocity"), cone
        d.count, d.volume_fraction, d.rate, d.mass_rate = count, volume_fraction, rate, mass_rate
        d.attempts, d.seed = attempts, seed
        out = ffi.new("kyu_inserter **")
        world._check(lib.kyupy_inserter_create(world._world, d, out))
        self._ins = out[0]
        self._keep = []

    @staticmethod
    def _region(d: Any, region: Mapping[str, Any]) -> None:
        shape = region.get("shape")
        if shape not in _SHAPES:
            raise InvalidArgumentError(f"region shape must be one of {', '.join(_SHAPES)}, got {shape!r}")
        _keys(region, _REGION_KEYS[shape], f"a {shape} region")
        d.shape = _SHAPES[shape]
        d.center = _vec(region.get("center", (0, 0, 0)), "region center")
        if "rotation" in region:
            d.rotation = _vec(region["rotation"], "region rotation", 4)
        if shape == "cylinder":
            d.region_radius, d.half_height = region["radius"], region["half_height"]
        elif shape == "box":
            d.half_extents = _vec(region["half_extents"], "region half_extents")
        else:
            hx, hz = _vec(region["half_extents"], "region half_extents (x, z)", 2)
            d.half_extents = [hx, 0.0, hz]

    def _size(self, d: Any, radius: Mapping[str, Any]) -> None:
        kind = radius.get("distribution")
        if kind not in _DISTRIBUTIONS:
            raise InvalidArgumentError(f"radius distribution must be one of {', '.join(_DISTRIBUTIONS)}, got {kind!r}")
        allowed, d.size_kind = _DISTRIBUTIONS[kind]
        _keys(radius, allowed | {"distribution"}, f"a {kind} radius")
        if kind == "mixture":
            radii = np.ascontiguousarray(radius["radii"], dtype=np.float32)
            weights = np.ascontiguousarray(radius["weights"], dtype=np.float32)
            if radii.ndim != 1 or weights.shape != radii.shape:
                raise InvalidArgumentError(f"mixture: radii {radii.shape} and weights {weights.shape} must be equal 1-d")
            by = radius.get("by", "number")
            if by not in ("number", "mass"):
                raise InvalidArgumentError(f'mixture by must be "number" or "mass", got {by!r}')
            self._keep = [radii, weights]
            d.radii, d.weights = ffi.from_buffer("float[]", radii), ffi.from_buffer("float[]", weights)
            d.classes, d.by_mass = len(radii), 1 if by == "mass" else 0
            return
        d.min, d.max = radius["min"], radius["max"]
        if kind != "uniform":
            d.mean, d.sigma = radius["mean" if kind == "normal" else "median"], radius["sigma"]

    @property
    def _handle(self) -> Any:
        if self._ins == ffi.NULL:
            raise KyuError("the inserter is closed", "closed")
        return self._ins

    def run(self, seconds: float) -> int:
        """Inserts what is due at `seconds` after the inserter began (never before the last call's
        time); returns how many bodies this call made. All or nothing: a failure raises and inserts
        none."""
        made = ffi.new("int *")
        status = lib.kyu_inserter_run(self._handle, self._world._world, float(seconds), made)
        if status != lib.KYU_OK:
            self._world._check(status)
        return int(made[0])

    @property
    def stats(self) -> Dict[str, Any]:
        """What it has done: ``inserted``, ``requested`` (-1 when a volume fraction or a mass rate
        says how many), ``mass``, ``mass_requested``, ``volume_fraction`` of the region, ``tries``,
        ``blocked`` (calls that found no room), ``time``."""
        return _stats(lib.kyu_inserter_get_stats(self._handle))

    def restore(self, stats: Mapping[str, Any]) -> None:
        """Gives the inserter the counters of one that ran before (its :attr:`stats` when a snapshot
        was taken): a resumed run then inserts the same bodies."""
        st = _stats_in(stats)
        if lib.kyu_inserter_restore(self._handle, st) != lib.KYU_OK:
            raise InvalidArgumentError(f"restore: bad counters {dict(stats)!r}")

    def sample_radii(self, n: int, first: int = 0) -> npt.NDArray[np.float32]:
        """The radii of bodies `first` .. `first + n - 1` as the inserter draws them (a preview of the
        distribution, no world touched)."""
        out = np.empty(int(n), dtype=np.float32)
        status = lib.kyu_inserter_sample_radii(self._handle, int(first), int(n), ffi.from_buffer("float[]", out))
        if status != lib.KYU_OK:
            raise error_for(status, f"sample_radii({n}, first={first})")
        return out

    def close(self) -> None:
        """Frees the inserter (its bodies stay)."""
        if self._ins != ffi.NULL:
            lib.kyu_inserter_destroy(self._ins)
        self._ins = ffi.NULL

    def __enter__(self) -> "Inserter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_ins", ffi.NULL) != ffi.NULL:
            self.close()


_STAT_KEYS = ("inserted", "requested", "mass", "mass_requested", "volume_fraction", "tries", "blocked", "time")


def _stats(st: Any) -> Dict[str, Any]:
    return {k: (int(getattr(st, k)) if k in ("inserted", "requested", "tries", "blocked") else float(getattr(st, k)))
            for k in _STAT_KEYS}


def _stats_in(stats: Mapping[str, Any]) -> Any:
    st = ffi.new("kyu_inserter_stats *")
    for k in _STAT_KEYS:
        if k in stats:
            setattr(st, k, stats[k])
    return st


def inserter_stats(scene: Any) -> Sequence[Dict[str, Any]]:
    """Every inserter's stats of a scene (kyu_scene_inserter_stats), with its generator index."""
    out = []
    for k in range(lib.kyu_scene_inserter_count(scene)):
        d = _stats(lib.kyu_scene_inserter_stats(scene, k))
        d["generator"] = int(lib.kyu_scene_inserter_generator(scene, k))
        out.append(d)
    return out


def restore_scene_inserters(scene: Any, saved: Sequence[Mapping[str, Any]]) -> None:
    n = lib.kyu_scene_inserter_count(scene)
    if len(saved) != n:
        raise InvalidArgumentError(f"the scene has {n} inserters, {len(saved)} sets of stats were given")
    for k, st in enumerate(saved):
        if lib.kyu_scene_inserter_restore(scene, k, _stats_in(st)) != 0:
            raise InvalidArgumentError(f"inserters[{k}]: bad counters {dict(st)!r}")
