# SPDX-License-Identifier: MIT
"""The world: bodies (rigid spheres), colliders, stepping, bulk state as numpy arrays, events,
queries, snapshots and frame files. See docs/python.md for a tour."""
from __future__ import annotations

import math
import operator
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._kyu import ffi, lib
from .errors import InvalidArgumentError, KyuError, KyuIOError, SceneError, error_for

Vec3 = Union[Sequence[float], npt.NDArray[Any]]

#: numpy dtype of an array of body handles (the layout of C's ``kyu_body_id``).
BODY_ID = np.dtype([("index1", "<u4"), ("world", "<u4"), ("generation", "<u4")])
#: numpy dtype of an array of collider handles (C's ``kyu_collider_id``).
COLLIDER_ID = np.dtype([("index1", "<u4"), ("world", "<u4"), ("generation", "<u4")])

ALL_BITS = 0xFFFFFFFF


class BodyId(NamedTuple):
    """A body's handle: a value, as in C. ``index1`` is the body's id in kyu-sim's records (1, 2,
    3... in creation order while no body is removed); a handle of a removed body stays stale even
    when its slot is reused (the generation differs)."""

    index1: int
    world: int
    generation: int


class ColliderId(NamedTuple):
    """A collider's handle (same rules as :class:`BodyId`)."""

    index1: int
    world: int
    generation: int


@dataclass(frozen=True)
class ContactEvents:
    """Pairs that began or ended touching in the last step (or in every step of the last
    ``update``), as parallel arrays: entry i of each is event i, and ``len(events)`` is their number.
    ``body`` is the pair's lower slot; ``other`` is the other body or, for a collider, a null handle
    (index1 0), and then ``collider`` names it. ``step`` is the step of the last ``update`` it
    happened in (0 after ``step()``)."""

    body: npt.NDArray[Any]
    other: npt.NDArray[Any]
    collider: npt.NDArray[Any]
    sensor: npt.NDArray[np.bool_]
    step: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return len(self.body)


@dataclass(frozen=True)
class ImpactEvents:
    """Impacts of the last step (with ``enable_impact_events``), as parallel arrays (``len`` is
    their number). ``normal`` points from the other side to ``body``; ``time`` is the fraction of
    the step at which they met."""

    body: npt.NDArray[Any]
    other: npt.NDArray[Any]
    collider: npt.NDArray[Any]
    point: npt.NDArray[np.float32]
    normal: npt.NDArray[np.float32]
    approach_speed: npt.NDArray[np.float32]
    time: npt.NDArray[np.float32]
    step: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return len(self.body)


@dataclass(frozen=True)
class Hit:
    """A ray or sphere cast's hit: a body or a collider (the other is None), the point, the unit
    normal from the thing hit toward the ray, and the fraction of the translation travelled."""

    body: Optional[BodyId]
    collider: Optional[ColliderId]
    point: Tuple[float, float, float]
    normal: Tuple[float, float, float]
    fraction: float


@dataclass(frozen=True)
class Distance:
    """Closest points of two shapes A and B: signed distance (negative: overlap depth), the point of
    each on its surface, and the unit normal from B to A."""

    distance: float
    point_a: Tuple[float, float, float]
    point_b: Tuple[float, float, float]
    normal: Tuple[float, float, float]


@dataclass(frozen=True)
class BodyForces:
    """Each body's force and torque over the last step (its contacts' impulses, and the impacts'
    once :meth:`World.enable_impact_forces` is on, divided by the step) and its contacts, as
    parallel arrays in slot order (or in the order of the ids asked for)."""

    force: npt.NDArray[np.float32]
    torque: npt.NDArray[np.float32]
    coordination: npt.NDArray[np.int32]
    wall_contacts: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return len(self.force)


@dataclass(frozen=True)
class ContactNetwork:
    """Every pair that touches or pushed in the last step (sensors left out), as parallel arrays:
    ``body`` (side A) and ``other`` (a body, or a null handle) or ``collider``; the contact point, the
    normal (from B to A), the normal force on A (N, >= 0), its friction (3 per contact), rolling and
    twisting resistance's torque, and the gap (negative: overlap)."""

    body: npt.NDArray[Any]
    other: npt.NDArray[Any]
    collider: npt.NDArray[Any]
    point: npt.NDArray[np.float32]
    normal: npt.NDArray[np.float32]
    normal_force: npt.NDArray[np.float32]
    tangent_force: npt.NDArray[np.float32]
    rolling_torque: npt.NDArray[np.float32]
    gap: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.body)


@dataclass(frozen=True)
class RegionMeasure:
    """A box's measures (:meth:`World.measure_box`): the stress tensors are (3, 3) arrays in Pa,
    tension positive (a bed under its weight has ``stress[1, 1] < 0``); ``pressure`` is -trace/3."""

    bodies: int
    volume: float
    solid_volume: float
    packing_fraction: float
    coordination: float
    mass: float
    mean_velocity: npt.NDArray[np.float64]
    stress: npt.NDArray[np.float64]
    contact_stress: npt.NDArray[np.float64]
    kinetic_stress: npt.NDArray[np.float64]
    pressure: float


# ---- conversions -------------------------------------------------------------------------------------


def _vec(value: Vec3, name: str, n: int = 3) -> List[float]:
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (n,):
        raise InvalidArgumentError(f"{name} must be {n} numbers, got {value!r}")
    return [float(x) for x in arr]


def _tuple3(c: Any) -> Tuple[float, float, float]:
    return (float(c[0]), float(c[1]), float(c[2]))


def _body(value: Any) -> Tuple[int, int, int]:
    if isinstance(value, np.void):
        value = value.item()
    if not (isinstance(value, tuple) and len(value) == 3):
        raise InvalidArgumentError(f"a body handle is a BodyId (index1, world, generation), got {value!r}")
    return (int(value[0]), int(value[1]), int(value[2]))


def as_body_ids(ids: Any) -> npt.NDArray[Any]:
    """An array of body handles (dtype BODY_ID, C-contiguous) from one handle, a sequence of them or
    an array of them. An array of the right dtype and layout is used as is, without a copy."""
    if isinstance(ids, np.ndarray) and ids.dtype == BODY_ID:
        return np.ascontiguousarray(ids).reshape(-1)
    if isinstance(ids, BodyId):
        ids = [ids]
    return np.array([_body(i) for i in ids], dtype=BODY_ID).reshape(-1)


def _float_array(values: Any, shape: Tuple[int, ...], name: str) -> npt.NDArray[np.float32]:
    """values as a C-contiguous float32 array of `shape` (no copy when it already is one)."""
    arr = np.ascontiguousarray(values, dtype=np.float32)
    if arr.shape != shape:
        if arr.size == int(np.prod(shape)) and arr.ndim == 1 and len(shape) == 2:
            return arr.reshape(shape)
        raise InvalidArgumentError(f"{name} must have shape {shape}, got {arr.shape}")
    return arr


def _out_array(out: Optional[npt.NDArray[Any]], shape: Tuple[int, ...], dtype: Any, name: str = "out") -> npt.NDArray[Any]:
    if out is None:
        return np.empty(shape, dtype=dtype)
    if out.dtype != dtype or out.shape != shape or not out.flags.c_contiguous or not out.flags.writeable:
        raise InvalidArgumentError(
            f"{name} must be a writable C-contiguous {np.dtype(dtype).name} array of shape {shape}, got "
            f"{out.dtype.name} {out.shape}"
        )
    return out


def _fp(arr: npt.NDArray[Any]) -> Any:
    return ffi.from_buffer("float[]", arr)


def _ip(ids: npt.NDArray[Any]) -> Any:
    return ffi.from_buffer("kyu_body_id[]", ids)


def _handle_or_none(c: Any, cls: Any) -> Any:
    return None if c.index1 == 0 else cls(c.index1, c.world, c.generation)


def _hit(h: Any) -> Optional[Hit]:
    if not h.hit:
        return None
    return Hit(_handle_or_none(h.body, BodyId), _handle_or_none(h.collider, ColliderId), _tuple3(h.point),
               _tuple3(h.normal), float(h.fraction))


def _distance(d: Any) -> Distance:
    return Distance(float(d.distance), _tuple3(d.point_a), _tuple3(d.point_b), _tuple3(d.normal))


def quat_from_axis_angle(axis: Vec3, degrees: float) -> Tuple[float, float, float, float]:
    """The rotation of `degrees` about `axis` as a quaternion (x, y, z, w), for colliders."""
    a = np.asarray(_vec(axis, "axis"))
    norm = float(np.linalg.norm(a))
    if not norm > 0:
        raise InvalidArgumentError(f"axis must be a non-zero vector, got {axis!r}")
    h = math.radians(degrees) / 2
    x, y, z = a / norm * math.sin(h)
    return (float(x), float(y), float(z), math.cos(h))


_SHAPES = {"plane": lib.KYU_SHAPE_PLANE, "box": lib.KYU_SHAPE_BOX, "capsule": lib.KYU_SHAPE_CAPSULE,
           "hull": lib.KYU_SHAPE_HULL, "mesh": lib.KYU_SHAPE_MESH}
# The keyword arguments each collider kind takes besides the common ones.
_SHAPE_ARGS = {"plane": {"normal"}, "box": {"half_extents", "rotation"}, "capsule": {"a", "b", "radius", "rotation"},
               "hull": {"points", "rotation"}, "mesh": {"points", "triangles", "rotation"}}
_SETTINGS = ["gravity", "fixed_dt", "max_steps_per_update", "restitution_threshold", "solver_iterations",
             "linear_slop", "contact_margin", "max_events_per_step", "body_capacity", "max_bodies",
             "max_colliders", "cell_size", "worker_count", "enable_sleep", "enable_impact_events", "sleep_speed",
             "sleep_time", "tangential_restitution"]


def _set_periodic(d: Any, periodic: Mapping[str, Any]) -> None:
    """The periodic box as the scene file writes it: {"x": True, "lower": (0, 0, 0), "upper": (4, 4, 4)}."""
    unknown = set(periodic) - {"x", "y", "z", "lower", "upper"}
    if unknown:
        raise InvalidArgumentError(f"periodic: unknown keys {sorted(unknown)} (known: x, y, z, lower, upper)")
    for k, axis in enumerate("xyz"):
        d.periodic[k] = 1 if periodic.get(axis, False) else 0
    for key in ("lower", "upper"):
        if key not in periodic:
            raise InvalidArgumentError(f"periodic: missing {key!r} (the box's {key} corner)")
    d.periodic_lower = _vec(periodic["lower"], "periodic.lower")
    d.periodic_upper = _vec(periodic["upper"], "periodic.upper")


class World:
    """A kyu world: rigid spheres (bodies) and static or kinematic colliders, stepped in fixed steps.

    >>> w = World(gravity=(0, -9.81, 0))
    >>> w.add_collider("plane")
    >>> h = w.add_body(position=(0, 2, 0), radius=0.25, restitution=0.5)
    >>> w.step(60)
    >>> w.positions()          # (N, 3) float32, every body in slot order

    Settings left as None take kyu's defaults (``kyu_world_def_default``: gravity (0, -9.81, 0),
    ``fixed_dt`` 1/60 s, sleep on, impact events off...); ``workers`` is ``worker_count`` (results
    are bit-identical for any count). A world is also a context manager that frees it on exit;
    :meth:`close` does the same. One thread at a time may use a world (steps release the GIL).
    """

    def __init__(
        self,
        gravity: Optional[Vec3] = None,
        fixed_dt: Optional[float] = None,
        *,
        workers: Optional[int] = None,
        enable_sleep: Optional[bool] = None,
        enable_impact_events: Optional[bool] = None,
        restitution_threshold: Optional[float] = None,
        solver_iterations: Optional[int] = None,
        linear_slop: Optional[float] = None,
        contact_margin: Optional[float] = None,
        max_events_per_step: Optional[int] = None,
        body_capacity: Optional[int] = None,
        max_bodies: Optional[int] = None,
        max_colliders: Optional[int] = None,
        cell_size: Optional[float] = None,
        sleep_speed: Optional[float] = None,
        sleep_time: Optional[float] = None,
        max_steps_per_update: Optional[int] = None,
        tangential_restitution: Optional[float] = None,
        periodic: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self._w: Any = ffi.NULL
        self._scene: Any = ffi.NULL
        self._steps = 0
        d = ffi.new("kyupy_world_def *")
        lib.kyupy_world_def_default(d)
        given = dict(gravity=gravity, fixed_dt=fixed_dt, worker_count=workers, enable_sleep=enable_sleep,
                     enable_impact_events=enable_impact_events, restitution_threshold=restitution_threshold,
                     solver_iterations=solver_iterations, linear_slop=linear_slop, contact_margin=contact_margin,
                     max_events_per_step=max_events_per_step, body_capacity=body_capacity, max_bodies=max_bodies,
                     max_colliders=max_colliders, cell_size=cell_size, sleep_speed=sleep_speed,
                     sleep_time=sleep_time, max_steps_per_update=max_steps_per_update,
                     tangential_restitution=tangential_restitution)
        if periodic is not None:
            _set_periodic(d, periodic)
        for key, value in given.items():
            if value is None:
                continue
            if key == "gravity":
                d.gravity = _vec(value, "gravity")
            elif key.startswith("enable_"):
                setattr(d, key, 1 if value else 0)
            else:
                setattr(d, key, value)
        out = ffi.new("kyu_world **")
        why = ffi.new("char[256]")
        status = lib.kyupy_world_create(d, out, why, 256)
        if status != lib.KYU_OK:
            shown = ", ".join(f"{k}={v!r}" for k, v in dict(given, periodic=periodic).items() if v is not None)
            detail = ffi.string(why).decode(errors="replace")
            raise error_for(status, f"kyu_world_create refused the settings ({shown or 'defaults'})"
                            + (f": {detail}" if detail else ""))
        self._w = out[0]

    # ---- scenes ----------------------------------------------------------------------------------

    @classmethod
    def from_scene(cls, path: Union[str, os.PathLike], *, threads: Optional[int] = None,
                   seed: Optional[int] = None) -> "World":
        """Loads a scene file (docs/scenes.md), as kyu-sim does: its settings, colliders, bodies and
        generators; :meth:`step` also runs its emitters. ``threads`` and ``seed`` override the
        scene's. Raises :class:`SceneError` with the loader's line for a bad file."""
        return cls._load_scene(os.fspath(path), None, threads, seed)

    @classmethod
    def from_scene_text(cls, text: str, *, name: str = "<string>", threads: Optional[int] = None,
                        seed: Optional[int] = None) -> "World":
        """As :meth:`from_scene`, from the JSON text; `name` is used in messages."""
        return cls._load_scene(name, text, threads, seed)

    @classmethod
    def _load_scene(cls, name: str, text: Optional[str], threads: Optional[int], seed: Optional[int]) -> "World":
        opt = ffi.new("kyu_scene_options *")
        if threads is not None:
            opt.threads = threads
        if seed is not None:
            opt.has_seed, opt.seed = 1, seed
        err = ffi.new("char[1024]")
        if text is None:
            scene = lib.kyu_scene_load(name.encode(), opt, err, len(err))
        else:
            data = text.encode()
            scene = lib.kyu_scene_load_string(data, len(data), name.encode(), opt, err, len(err))
        if scene == ffi.NULL:
            raise SceneError(ffi.string(err).decode(errors="replace"), "scene", -1)
        self = cls.__new__(cls)
        self._scene = scene
        self._w = lib.kyu_scene_world(scene)
        self._steps = 0
        return self

    @property
    def is_scene(self) -> bool:
        """True for a world loaded from a scene file (its emitters run in :meth:`step`)."""
        return self._scene != ffi.NULL

    @property
    def run_steps(self) -> Optional[int]:
        """A scene's ``run.steps`` (what kyu-sim runs by default); None for other worlds."""
        return int(lib.kyu_scene_run_steps(self._scene)) if self.is_scene else None

    # ---- lifetime --------------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the world (and its scene). Calling it again does nothing; any other use after it
        raises KyuError."""
        if self._scene != ffi.NULL:
            lib.kyu_scene_destroy(self._scene)
        elif self._w != ffi.NULL:
            lib.kyu_world_destroy(self._w)
        self._scene = ffi.NULL
        self._w = ffi.NULL

    def __enter__(self) -> "World":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_w", ffi.NULL) != ffi.NULL:
            self.close()

    def __repr__(self) -> str:
        if self._w == ffi.NULL:
            return "<kyu.World closed>"
        return f"<kyu.World {self.body_count} bodies, step {self.step_index}>"

    def __len__(self) -> int:
        return self.body_count

    @property
    def _world(self) -> Any:
        if self._w == ffi.NULL:
            raise KyuError("the world is closed", "closed")
        return self._w

    def _check(self, status: int, prefix: str = "") -> None:
        if status != lib.KYU_OK:
            detail = ffi.string(lib.kyu_world_last_error(self._w)).decode(errors="replace") if self._w else ""
            raise error_for(status, prefix + detail)

    # ---- settings --------------------------------------------------------------------------------

    def settings(self) -> Dict[str, Any]:
        """The settings the world runs with (``kyu_world_get_def``), by their C names."""
        d = ffi.new("kyupy_world_def *")
        lib.kyupy_world_get_def(self._world, d)
        out = {k: getattr(d, k) for k in _SETTINGS}
        out["gravity"] = _tuple3(d.gravity)
        for k in ("enable_sleep", "enable_impact_events"):
            out[k] = bool(out[k])
        out["periodic"] = {"x": bool(d.periodic[0]), "y": bool(d.periodic[1]), "z": bool(d.periodic[2]),
                           "lower": _tuple3(d.periodic_lower), "upper": _tuple3(d.periodic_upper)}
        return out

    @property
    def gravity(self) -> Tuple[float, float, float]:
        """Gravity, m/s^2; setting it wakes every sleeping body when it changes."""
        return self.settings()["gravity"]

    @gravity.setter
    def gravity(self, value: Vec3) -> None:
        self._check(lib.kyupy_world_set_gravity(self._world, _vec(value, "gravity")))

    @property
    def fixed_dt(self) -> float:
        """The length of one step, s."""
        return float(self.settings()["fixed_dt"])

    # ---- bodies ----------------------------------------------------------------------------------

    def _body_def(self, kw: Dict[str, Any]) -> Any:
        d = ffi.new("kyupy_body_def *")
        lib.kyupy_body_def_default(d)
        names = {"category": "category_bits", "mask": "mask_bits", "sensor": "is_sensor"}
        for key, value in kw.items():
            if value is None:
                continue
            if key in ("position", "velocity", "angular_velocity"):
                setattr(d, key, _vec(value, key))
            elif key in ("sensor", "allow_sleep", "fixed_rotation"):
                setattr(d, names.get(key, key), 1 if value else 0)
            else:
                try:
                    setattr(d, names.get(key, key), value)
                except (TypeError, OverflowError) as e:
                    raise InvalidArgumentError(f"{key}: {e}") from None
        return d

    def add_body(
        self,
        position: Vec3,
        velocity: Optional[Vec3] = None,
        *,
        radius: Optional[float] = None,
        mass: Optional[float] = None,
        restitution: Optional[float] = None,
        friction: Optional[float] = None,
        linear_damping: Optional[float] = None,
        gravity_scale: Optional[float] = None,
        category: Optional[int] = None,
        mask: Optional[int] = None,
        group: Optional[int] = None,
        sensor: Optional[bool] = None,
        allow_sleep: Optional[bool] = None,
        angular_velocity: Optional[Vec3] = None,
        angular_damping: Optional[float] = None,
        inertia_scale: Optional[float] = None,
        rolling_resistance: Optional[float] = None,
        fixed_rotation: Optional[bool] = None,
    ) -> BodyId:
        """Adds a body: a rigid sphere that spins. Units: m, m/s, kg, rad/s. None takes kyu's
        default (radius 0.5 m, mass 1 kg, restitution 0, friction 0.5, damping 0, gravity scale 1,
        all category and mask bits, group 0, not a sensor, may sleep; no spin, inertia_scale 1 (a
        solid sphere, I = 2/5 m r^2), rolling_resistance 0, turning). Raises InvalidArgumentError for
        a bad value, with kyu's message (``radius -1 (allowed: (0, 1e6])``)."""
        d = self._body_def(dict(position=position, velocity=velocity, radius=radius, mass=mass,
                                restitution=restitution, friction=friction, linear_damping=linear_damping,
                                gravity_scale=gravity_scale, category=category, mask=mask, group=group,
                                sensor=sensor, allow_sleep=allow_sleep, angular_velocity=angular_velocity,
                                angular_damping=angular_damping, inertia_scale=inertia_scale,
                                rolling_resistance=rolling_resistance, fixed_rotation=fixed_rotation))
        out = ffi.new("kyu_body_id *")
        self._check(lib.kyupy_body_create(self._world, d, out))
        return BodyId(out.index1, out.world, out.generation)

    def add_bodies(
        self,
        positions: Any,
        velocities: Any = None,
        *,
        radius: Any = None,
        mass: Any = None,
        **common: Any,
    ) -> npt.NDArray[Any]:
        """Adds N bodies in one call: `positions` (N, 3); `velocities` (N, 3) or None; `radius` and
        `mass` a number or N numbers; the other keywords of :meth:`add_body` are one value for all.
        Returns their handles (an array of dtype BODY_ID). All or none: when body k is refused, no
        body is added and the error names ``bodies[k]``."""
        pos = np.ascontiguousarray(positions, dtype=np.float32)
        if pos.ndim != 2 or pos.shape[1] != 3:
            raise InvalidArgumentError(f"positions must have shape (N, 3), got {pos.shape}")
        n = len(pos)
        vel = None if velocities is None else _float_array(velocities, (n, 3), "velocities")
        per_body: Dict[str, Any] = {}
        for key, value in (("radius", radius), ("mass", mass)):
            if value is not None and np.ndim(value) > 0:
                per_body[key] = _float_array(value, (n,), key)
            elif value is not None:
                common[key] = value
        unknown = set(common) - {"radius", "mass", "restitution", "friction", "linear_damping", "gravity_scale",
                                 "category", "mask", "group", "sensor", "allow_sleep", "angular_damping",
                                 "inertia_scale", "rolling_resistance", "fixed_rotation"}
        if unknown:
            raise TypeError(f"add_bodies() got unexpected keyword arguments {sorted(unknown)}")
        d = self._body_def(common)
        ids = np.empty(n, dtype=BODY_ID)
        failed = ffi.new("int *")
        keep = [pos, vel, per_body]  # alive until the call returns
        status = lib.kyupy_bodies_create(
            self._world, d, n, _fp(pos), ffi.NULL if vel is None else _fp(vel),
            _fp(per_body["radius"]) if "radius" in per_body else ffi.NULL,
            _fp(per_body["mass"]) if "mass" in per_body else ffi.NULL, _ip(ids), failed)
        del keep
        self._check(status, f"bodies[{failed[0]}]: ")
        return ids

    def remove_body(self, body: BodyId) -> None:
        """Removes a body; its handle (and every copy) becomes stale."""
        self._check(lib.kyu_body_destroy(self._world, _body(body)))

    def is_valid(self, body: BodyId) -> bool:
        """True when the handle names a live body of this world."""
        return bool(lib.kyu_body_is_valid(self._world, _body(body)))

    def bodies(self) -> npt.NDArray[Any]:
        """Every live body's handle in slot order (the order of :meth:`positions`), dtype BODY_ID."""
        n = lib.kyu_world_body_count(self._world)
        ids = np.empty(n, dtype=BODY_ID)
        lib.kyu_world_get_bodies(self._w, _ip(ids), n)
        return ids

    def rows(self, ids: Any) -> npt.NDArray[np.intp]:
        """The row of each handle in the arrays of :meth:`positions` (slot order). Raises
        StaleHandleError for a handle that names no live body."""
        ids = as_body_ids(ids)
        live = self.bodies()
        at = np.searchsorted(live["index1"], ids["index1"])
        at_c = np.minimum(at, max(len(live) - 1, 0))
        good = (at < len(live)) & (live[at_c] == ids) if len(live) else np.zeros(len(ids), bool)
        if not np.all(good):
            bad = int(np.argmin(good))
            raise error_for(lib.KYU_ERR_STALE_HANDLE, f"ids[{bad}] {BodyId(*ids[bad].item())} names no live body")
        return at

    @property
    def body_count(self) -> int:
        """Live bodies (also ``len(world)``)."""
        return int(lib.kyu_world_body_count(self._world))

    @property
    def sleeping_body_count(self) -> int:
        """Live bodies whose island sleeps."""
        return int(lib.kyu_world_sleeping_body_count(self._world))

    def position(self, body: BodyId) -> Tuple[float, float, float]:
        """One body's position, m."""
        out = ffi.new("float[3]")
        self._check(lib.kyupy_body_get_position(self._world, _body(body), out))
        return _tuple3(out)

    def velocity(self, body: BodyId) -> Tuple[float, float, float]:
        """One body's velocity, m/s."""
        out = ffi.new("float[3]")
        self._check(lib.kyupy_body_get_velocity(self._world, _body(body), out))
        return _tuple3(out)

    def angular_velocity(self, body: BodyId) -> Tuple[float, float, float]:
        """One body's angular velocity, rad/s (world frame)."""
        out = ffi.new("float[3]")
        self._check(lib.kyupy_body_get_angular_velocity(self._world, _body(body), out))
        return _tuple3(out)

    def rotation(self, body: BodyId) -> Tuple[float, float, float, float]:
        """One body's orientation, a unit quaternion (x, y, z, w), integrated from its angular
        velocity every step."""
        out = ffi.new("float[4]")
        self._check(lib.kyupy_body_get_rotation(self._world, _body(body), out))
        return (float(out[0]), float(out[1]), float(out[2]), float(out[3]))

    def set_angular_velocity(self, body: BodyId, angular_velocity: Vec3) -> None:
        """Sets a body's angular velocity, rad/s (world frame; wakes its island). A body of fixed
        rotation takes only zero (InvalidArgumentError)."""
        self._check(lib.kyupy_body_set_angular_velocity(self._world, _body(body),
                                                        _vec(angular_velocity, "angular_velocity")))

    def set_rotation(self, body: BodyId, rotation: Sequence[float]) -> None:
        """Sets a body's orientation, a quaternion (x, y, z, w), normalised (finite, not zero). A
        sphere's shape does not change with it: it moves nothing and wakes nothing."""
        self._check(lib.kyupy_body_set_rotation(self._world, _body(body), _vec(rotation, "rotation", 4)))

    def set_position(self, body: BodyId, position: Vec3) -> None:
        """Teleports a body (wakes its island; contacts are found again next step)."""
        self._check(lib.kyupy_body_set_position(self._world, _body(body), _vec(position, "position")))

    def set_velocity(self, body: BodyId, velocity: Vec3) -> None:
        """Sets a body's velocity, m/s (wakes its island)."""
        self._check(lib.kyupy_body_set_velocity(self._world, _body(body), _vec(velocity, "velocity")))

    def apply_impulse(self, body: BodyId, impulse: Vec3) -> None:
        """v += impulse / mass (impulse in N s)."""
        self._check(lib.kyupy_body_apply_impulse(self._world, _body(body), _vec(impulse, "impulse")))

    def apply_force(self, body: BodyId, force: Vec3, point: Optional[Vec3] = None) -> None:
        """Adds a force, N, to what a body holds for the next step (wakes its island). At `point` (a
        world point) it adds the torque (point - centre) x force too, which a body of fixed rotation
        ignores. Forces are summed until a step uses them, then cleared: they push over the next
        step only (``step(n)``: the first of the n), or over every step of the next :meth:`update`
        (an update that runs no step clears them too), so a force applied once a frame pushes for
        the frame's whole time. Integrated as gravity is (free flight stays an exact parabola)."""
        if point is None:
            self._check(lib.kyupy_body_apply_force(self._world, _body(body), _vec(force, "force")))
        else:
            self._check(lib.kyupy_body_apply_force_at_point(self._world, _body(body), _vec(force, "force"),
                                                            _vec(point, "point")))

    def apply_torque(self, body: BodyId, torque: Vec3) -> None:
        """Adds a torque, N m, for the next step, summed and cleared as forces are: over a step the
        angular velocity changes by torque * dt / I. A body of fixed rotation ignores it."""
        self._check(lib.kyupy_body_apply_torque(self._world, _body(body), _vec(torque, "torque")))

    def force(self, body: BodyId) -> Tuple[float, float, float]:
        """The force, N, a body holds for the next step ((0, 0, 0) when none)."""
        out = ffi.new("float[3]")
        self._check(lib.kyupy_body_get_force(self._world, _body(body), out))
        return _tuple3(out)

    def torque(self, body: BodyId) -> Tuple[float, float, float]:
        """The torque, N m, a body holds for the next step ((0, 0, 0) when none)."""
        out = ffi.new("float[3]")
        self._check(lib.kyupy_body_get_torque(self._world, _body(body), out))
        return _tuple3(out)

    def radius(self, body: BodyId) -> float:
        """One body's radius, m."""
        out = ffi.new("float *")
        self._check(lib.kyu_body_get_radius(self._world, _body(body), out))
        return float(out[0])

    def mass(self, body: BodyId) -> float:
        """One body's mass, kg."""
        out = ffi.new("float *")
        self._check(lib.kyu_body_get_mass(self._world, _body(body), out))
        return float(out[0])

    def is_awake(self, body: BodyId) -> bool:
        """False while the body's island sleeps (and for a stale handle)."""
        return bool(lib.kyu_body_is_awake(self._world, _body(body)))

    def contacts(self, body: BodyId) -> ContactEvents:
        """The pairs this body touches now, as :class:`ContactEvents` arrays."""
        total = ffi.new("int *")
        b = _body(body)
        self._check(lib.kyu_body_get_contacts(self._world, b, ffi.NULL, 0, total))
        buf = ffi.new("kyu_contact_event[]", max(total[0], 1))
        self._check(lib.kyu_body_get_contacts(self._w, b, buf, total[0], total))
        n = total[0]
        raw = np.frombuffer(ffi.buffer(buf, n * ffi.sizeof("kyu_contact_event")),
                            dtype=np.dtype({"names": ["body", "other", "collider", "sensor", "step"],
                                            "formats": [BODY_ID, BODY_ID, COLLIDER_ID, np.bool_, np.int32],
                                            "offsets": [ffi.offsetof("kyu_contact_event", f)
                                                        for f in ("body", "other", "collider", "sensor", "step")],
                                            "itemsize": ffi.sizeof("kyu_contact_event")}))
        return ContactEvents(raw["body"].copy(), raw["other"].copy(), raw["collider"].copy(), raw["sensor"].copy(),
                             raw["step"].copy())

    # ---- bulk state ------------------------------------------------------------------------------

    def _all3(self, getter: Any, out: Optional[npt.NDArray[Any]]) -> npt.NDArray[np.float32]:
        n = lib.kyu_world_body_count(self._world)
        out = _out_array(out, (n, 3), np.float32)
        getter(self._w, _fp(out), n)
        return out

    def _list3(self, getter: Any, ids: Any, out: Optional[npt.NDArray[Any]]) -> npt.NDArray[np.float32]:
        ids = as_body_ids(ids)
        out = _out_array(out, (len(ids), 3), np.float32)
        self._check(getter(self._world, _ip(ids), len(ids), _fp(out)))
        return out

    def positions(self, ids: Any = None, *, out: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
        """Positions, m, as an (N, 3) float32 array: every live body in slot order, or the bodies
        `ids` in their order. `out` (a C-contiguous float32 array of that shape) is filled instead of
        a new array: a loop that reads every frame allocates nothing."""
        if ids is None:
            return self._all3(lib.kyu_world_get_positions, out)
        return self._list3(lib.kyu_bodies_get_positions, ids, out)

    def velocities(self, ids: Any = None, *, out: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
        """Velocities, m/s, as an (N, 3) float32 array (as :meth:`positions`)."""
        if ids is None:
            return self._all3(lib.kyu_world_get_velocities, out)
        return self._list3(lib.kyu_bodies_get_velocities, ids, out)

    def angular_velocities(self, ids: Any = None, *, out: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
        """Angular velocities, rad/s (world frame), as an (N, 3) float32 array (as :meth:`positions`)."""
        if ids is None:
            return self._all3(lib.kyu_world_get_angular_velocities, out)
        return self._list3(lib.kyu_bodies_get_angular_velocities, ids, out)

    def rotations(self, ids: Any = None) -> npt.NDArray[np.float32]:
        """Orientations as unit quaternions (x, y, z, w), an (N, 4) float32 array: every body in slot
        order, or the bodies `ids`."""
        if ids is None:
            n = lib.kyu_world_body_count(self._world)
            out = np.empty((n, 4), dtype=np.float32)
            lib.kyu_world_get_rotations(self._w, _fp(out), n)
            return out
        ids = as_body_ids(ids)
        out = np.empty((len(ids), 4), dtype=np.float32)
        self._check(lib.kyu_bodies_get_rotations(self._world, _ip(ids), len(ids), _fp(out)))
        return out

    def set_angular_velocities(self, values: Any, ids: Any = None) -> None:
        """Sets angular velocities, rad/s, as :meth:`set_positions` sets positions (a body of fixed
        rotation takes only zero)."""
        self._set3(lib.kyu_bodies_set_angular_velocities, values, ids, "values")

    def rotational_energy(self) -> float:
        """The energy of spin, J (part of :meth:`kinetic_energy`)."""
        return float(lib.kyu_world_rotational_energy(self._world))

    def angular_momentum(self) -> Tuple[float, float, float]:
        """Total angular momentum about the origin (orbital plus spin), kg m^2/s."""
        out = ffi.new("double[3]")
        self._check(lib.kyu_world_angular_momentum(self._world, out))
        return (out[0], out[1], out[2])

    def interpolated_positions(self, *, out: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
        """Positions for drawing between the last two steps of :meth:`update`, by :attr:`alpha`."""
        return self._all3(lib.kyu_world_get_interpolated_positions, out)

    def radii(self, ids: Any = None) -> npt.NDArray[np.float32]:
        """Radii, m, (N,) float32 (every body in slot order, or `ids`)."""
        if ids is None:
            n = lib.kyu_world_body_count(self._world)
            out = np.empty(n, dtype=np.float32)
            lib.kyu_world_get_radii(self._w, _fp(out), n)
            return out
        ids = as_body_ids(ids)
        out = np.empty(len(ids), dtype=np.float32)
        self._check(lib.kyu_bodies_get_radii(self._world, _ip(ids), len(ids), _fp(out)))
        return out

    def masses(self) -> npt.NDArray[np.float32]:
        """Masses, kg, (N,) float32, every body in slot order."""
        n = lib.kyu_world_body_count(self._world)
        out = np.empty(n, dtype=np.float32)
        lib.kyu_world_get_masses(self._w, _fp(out), n)
        return out

    def awake(self) -> npt.NDArray[np.bool_]:
        """Whether each body is awake, (N,) bool, every body in slot order."""
        n = lib.kyu_world_body_count(self._world)
        out = np.empty(n, dtype=np.uint8)
        lib.kyu_world_get_awake(self._w, ffi.from_buffer("uint8_t[]", out), n)
        return out.view(np.bool_)

    def _set3(self, setter: Any, values: Any, ids: Any, name: str) -> None:
        ids = self.bodies() if ids is None else as_body_ids(ids)
        arr = _float_array(values, (len(ids), 3), name)
        self._check(setter(self._world, _ip(ids), len(ids), _fp(arr)))

    def set_positions(self, values: Any, ids: Any = None) -> None:
        """Teleports bodies: `values` (N, 3) for every live body in slot order, or for `ids`. All or
        nothing: a bad handle or a NaN anywhere raises and no body moves. Wakes sleeping islands. A
        C-contiguous float32 array is passed to kyu without a copy."""
        self._set3(lib.kyu_bodies_set_positions, values, ids, "values")

    def set_velocities(self, values: Any, ids: Any = None) -> None:
        """Sets velocities, m/s, as :meth:`set_positions` sets positions."""
        self._set3(lib.kyu_bodies_set_velocities, values, ids, "values")

    # ---- colliders -------------------------------------------------------------------------------

    def add_collider(
        self,
        kind: str = "plane",
        *,
        position: Optional[Vec3] = None,
        rotation: Optional[Sequence[float]] = None,
        normal: Optional[Vec3] = None,
        half_extents: Optional[Vec3] = None,
        a: Optional[Vec3] = None,
        b: Optional[Vec3] = None,
        radius: Optional[float] = None,
        points: Any = None,
        triangles: Any = None,
        motion: str = "static",
        velocity: Optional[Vec3] = None,
        restitution: Optional[float] = None,
        friction: Optional[float] = None,
        category: Optional[int] = None,
        mask: Optional[int] = None,
        angular_velocity: Optional[Vec3] = None,
        surface_velocity: Optional[Vec3] = None,
        rolling_resistance: Optional[float] = None,
    ) -> ColliderId:
        """Adds a collider: level geometry the bodies collide with.

        - ``"plane"``: `normal` (default +y) out of the solid side, `position` any point on it;
        - ``"box"``: `half_extents`, centred at `position`;
        - ``"capsule"``: the segment `a`-`b` (in the collider's frame) grown by `radius`;
        - ``"hull"``: the convex hull of `points` (M, 3);
        - ``"mesh"``: triangles (K, 3) of vertex indices into `points` (two-sided).

        `rotation` is a quaternion (x, y, z, w) (see :func:`quat_from_axis_angle`); `motion`
        ``"static"`` or ``"kinematic"`` (moves by `velocity`, turns about `position` by
        `angular_velocity`, rad/s: a turntable); any collider may have a `surface_velocity` (m/s, its
        surface slides without it moving: a conveyor belt). A keyword the kind does not take is an
        error, as in scene files."""
        if kind not in _SHAPES:
            raise InvalidArgumentError(f"kind must be one of {', '.join(_SHAPES)}, got {kind!r}")
        shaped = dict(normal=normal, half_extents=half_extents, a=a, b=b, radius=radius, points=points,
                      triangles=triangles, rotation=rotation)
        extra = sorted(k for k, v in shaped.items() if v is not None and k not in _SHAPE_ARGS[kind])
        if extra:
            raise InvalidArgumentError(f"a {kind} collider takes no {', '.join(extra)}")
        if motion not in ("static", "kinematic"):
            raise InvalidArgumentError(f"motion must be 'static' or 'kinematic', got {motion!r}")
        if velocity is not None and motion != "kinematic":
            raise InvalidArgumentError("only a collider with motion='kinematic' moves: velocity needs it")
        if angular_velocity is not None and motion != "kinematic":
            raise InvalidArgumentError("only a collider with motion='kinematic' turns: angular_velocity needs it")
        d = ffi.new("kyupy_collider_def *")
        lib.kyupy_collider_def_default(d)
        d.type = _SHAPES[kind]
        d.motion = lib.KYU_KINEMATIC if motion == "kinematic" else lib.KYU_STATIC
        for key, value in (("position", position), ("normal", normal), ("half_extents", half_extents),
                           ("capsule_a", a), ("capsule_b", b), ("velocity", velocity),
                           ("angular_velocity", angular_velocity), ("surface_velocity", surface_velocity)):
            if value is not None:
                setattr(d, key, _vec(value, key))
        if rotation is not None:
            d.rotation = _vec(rotation, "rotation", 4)
        for key, value in (("radius", radius), ("restitution", restitution), ("friction", friction),
                           ("category_bits", category), ("mask_bits", mask), ("rolling_resistance", rolling_resistance)):
            if value is not None:
                setattr(d, key, value)
        keep: List[Any] = []
        if points is not None:
            pts = np.ascontiguousarray(points, dtype=np.float32)
            if pts.ndim != 2 or pts.shape[1] != 3:
                raise InvalidArgumentError(f"points must have shape (M, 3), got {pts.shape}")
            keep.append(pts)
            d.points, d.point_count = _fp(pts), len(pts)
        if triangles is not None:
            tri = np.ascontiguousarray(triangles, dtype=np.int32)
            if tri.ndim != 2 or tri.shape[1] != 3:
                raise InvalidArgumentError(f"triangles must have shape (K, 3), got {tri.shape}")
            keep.append(tri)
            d.indices, d.triangle_count = ffi.from_buffer("int32_t[]", tri), len(tri)
        out = ffi.new("kyu_collider_id *")
        self._check(lib.kyupy_collider_create(self._world, d, out))
        del keep
        return ColliderId(out.index1, out.world, out.generation)

    def remove_collider(self, collider: ColliderId) -> None:
        """Removes a collider (its contacts end next step)."""
        self._check(lib.kyu_collider_destroy(self._world, _body(collider)))

    def collider_is_valid(self, collider: ColliderId) -> bool:
        """True when the handle names a live collider of this world."""
        return bool(lib.kyu_collider_is_valid(self._world, _body(collider)))

    def set_collider_velocity(self, collider: ColliderId, velocity: Vec3) -> None:
        """Sets a kinematic collider's velocity, m/s."""
        self._check(lib.kyupy_collider_set_velocity(self._world, _body(collider), _vec(velocity, "velocity")))

    def set_collider_transform(self, collider: ColliderId, position: Vec3,
                               rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)) -> None:
        """Teleports a collider (box centre or plane point; rotation a quaternion x, y, z, w)."""
        self._check(lib.kyupy_collider_set_transform(self._world, _body(collider), _vec(position, "position"),
                                                     _vec(rotation, "rotation", 4)))

    def collider_position(self, collider: ColliderId) -> Tuple[float, float, float]:
        """A collider's position, m."""
        out = ffi.new("float[3]")
        self._check(lib.kyupy_collider_get_position(self._world, _body(collider), out))
        return _tuple3(out)

    # ---- stepping --------------------------------------------------------------------------------

    def step(self, n: int = 1) -> None:
        """Runs `n` fixed steps of :attr:`fixed_dt` (a scene world runs its emitters too). ``step(0)``
        runs none, as ``range(0)`` does; a negative `n` raises InvalidArgumentError (a ValueError)
        and a non-integer TypeError, before anything runs."""
        w = self._world
        n = operator.index(n)
        if n < 0:
            raise InvalidArgumentError(f"step(n): n is a count of steps and must be >= 0, got {n}",
                                       "KYU_ERR_INVALID_ARGUMENT", lib.KYU_ERR_INVALID_ARGUMENT)
        for _ in range(n):
            if self._scene != ffi.NULL:
                if lib.kyu_scene_step(self._scene) != 0:
                    raise KyuError(ffi.string(lib.kyu_scene_last_error(self._scene)).decode(), "scene")
            else:
                self._check(lib.kyu_world_step(w))
                self._steps += 1

    def update(self, frame_seconds: float) -> int:
        """Adds a frame's time to the accumulator and runs the steps that fit (at most
        ``max_steps_per_update``); returns how many ran. Then :attr:`alpha` is the fraction of a step
        left over, for :meth:`interpolated_positions`. Not for scene worlds (their emitters run on
        the scene's clock: use :meth:`step`)."""
        if self.is_scene:
            raise KyuError("update() does not run a scene's emitters: step a scene world with step()", "scene")
        ran = ffi.new("int *")
        status = lib.kyu_world_update(self._world, frame_seconds, ran)
        self._steps += ran[0]
        self._check(status)
        return int(ran[0])

    @property
    def alpha(self) -> float:
        """Interpolation factor in [0, 1) left by :meth:`update`."""
        return float(lib.kyu_world_alpha(self._world))

    @property
    def step_index(self) -> int:
        """Steps run: the scene's clock for a scene world; otherwise the steps this object ran (set
        by :meth:`load` when given a step)."""
        if self._scene != ffi.NULL:
            return int(lib.kyu_scene_step_index(self._scene))
        return self._steps

    @property
    def time(self) -> float:
        """Simulated time, s: step_index * fixed_dt, rounded to microseconds as kyu-sim writes it."""
        return round(self.step_index * self.fixed_dt * 1e6) / 1e6

    # ---- whole-world figures ---------------------------------------------------------------------

    def state_hash(self) -> int:
        """A 64-bit hash of every body's slot, position and velocity bits (``kyu_world_state_hash``):
        equal hashes are bit-identical states; kyu-sim's summary.json shows it in hex."""
        return int(lib.kyu_world_state_hash(self._world))

    def kinetic_energy(self) -> float:
        """Total kinetic energy of the bodies, translation and spin, J."""
        return float(lib.kyu_world_kinetic_energy(self._world))

    def momentum(self) -> npt.NDArray[np.float64]:
        """Total linear momentum of the bodies, kg m/s, (3,) float64."""
        out = np.empty(3, dtype=np.float64)
        self._check(lib.kyu_world_momentum(self._world, ffi.from_buffer("double[]", out)))
        return out

    def stats(self) -> Dict[str, Any]:
        """Counters and stage timings (ms) of the last step (``kyu_world_stats``)."""
        s = lib.kyu_world_stats(self._world)
        return {name: getattr(s, name) for name, _ in ffi.typeof("kyu_step_stats").fields}

    # ---- events ----------------------------------------------------------------------------------

    def _contact_events(self, getter: Any) -> ContactEvents:
        none = ffi.new("kyu_contact_event_arrays *")
        n = getter(self._world, none, 0)
        body, other = np.empty(n, BODY_ID), np.empty(n, BODY_ID)
        coll, sensor, step = np.empty(n, COLLIDER_ID), np.empty(n, np.uint8), np.empty(n, np.int32)
        arrays = ffi.new("kyu_contact_event_arrays *", {
            "body": _ip(body), "other": _ip(other), "collider": ffi.from_buffer("kyu_collider_id[]", coll),
            "sensor": ffi.from_buffer("uint8_t[]", sensor), "step": ffi.from_buffer("int[]", step)})
        getter(self._w, arrays, n)
        return ContactEvents(body, other, coll, sensor.view(np.bool_), step)

    def begin_events(self) -> ContactEvents:
        """Pairs that began touching in the last step (an impact, a resting contact within the
        slop, a sensor overlap)."""
        return self._contact_events(lib.kyu_world_get_begin_events_flat)

    def end_events(self) -> ContactEvents:
        """Pairs that stopped touching in the last step, and pairs of bodies removed before it."""
        return self._contact_events(lib.kyu_world_get_end_events_flat)

    def impact_events(self) -> ImpactEvents:
        """Impacts of the last step, in time order. The world must record them
        (``enable_impact_events=True``); one that does not raises KyuError rather than answer with
        no impacts, which would read as "nothing hit"."""
        d = ffi.new("kyupy_world_def *")
        lib.kyupy_world_get_def(self._world, d)
        if not d.enable_impact_events:
            raise KyuError("impact events are off in this world, so none were recorded: create it with "
                           "enable_impact_events=True (a scene: \"world\": {\"enable_impact_events\": true}); "
                           "begin_events() and end_events() are always recorded", "impact_events_off")
        none = ffi.new("kyu_impact_event_arrays *")
        n = lib.kyu_world_get_impact_events_flat(self._world, none, 0)
        ev = ImpactEvents(np.empty(n, BODY_ID), np.empty(n, BODY_ID), np.empty(n, COLLIDER_ID),
                          np.empty((n, 3), np.float32), np.empty((n, 3), np.float32), np.empty(n, np.float32),
                          np.empty(n, np.float32), np.empty(n, np.int32))
        arrays = ffi.new("kyu_impact_event_arrays *", {
            "body": _ip(ev.body), "other": _ip(ev.other), "collider": ffi.from_buffer("kyu_collider_id[]", ev.collider),
            "point": _fp(ev.point), "normal": _fp(ev.normal), "approach_speed": _fp(ev.approach_speed),
            "time": _fp(ev.time), "step": ffi.from_buffer("int[]", ev.step)})
        lib.kyu_world_get_impact_events_flat(self._w, arrays, n)
        return ev

    # ---- queries ---------------------------------------------------------------------------------

    def _filter(self, category: int, mask: int, skip_colliders: bool, ignore: Optional[BodyId]) -> Any:
        f = ffi.new("kyupy_filter *")
        f.category_bits, f.mask_bits, f.skip_colliders = category, mask, 1 if skip_colliders else 0
        if ignore is not None:
            f.ignore_body = _body(ignore)
        return f

    def raycast(self, origin: Vec3, translation: Vec3, *, category: int = ALL_BITS, mask: int = ALL_BITS,
                skip_colliders: bool = False, ignore: Optional[BodyId] = None) -> Optional[Hit]:
        """The first body or collider on the segment origin -> origin + translation, or None. A ray
        starting inside a body does not hit it. `category`/`mask` filter what is seen, as for a pair
        of bodies; `ignore` is a body never seen."""
        out = ffi.new("kyupy_hit *")
        self._check(lib.kyupy_raycast(self._world, _vec(origin, "origin"), _vec(translation, "translation"),
                                      self._filter(category, mask, skip_colliders, ignore), out))
        return _hit(out)

    def raycast_all(self, origin: Vec3, translation: Vec3, *, category: int = ALL_BITS, mask: int = ALL_BITS,
                    skip_colliders: bool = False, ignore: Optional[BodyId] = None) -> List[Hit]:
        """Every body and collider on the segment, nearest first."""
        f = self._filter(category, mask, skip_colliders, ignore)
        o, t = _vec(origin, "origin"), _vec(translation, "translation")
        count = ffi.new("int *")
        self._check(lib.kyupy_raycast_all(self._world, o, t, f, ffi.NULL, 0, count))
        hits = ffi.new("kyupy_hit[]", max(count[0], 1))
        self._check(lib.kyupy_raycast_all(self._w, o, t, f, hits, count[0], count))
        return [h for h in (_hit(hits[i]) for i in range(count[0])) if h is not None]

    def sphere_cast(self, origin: Vec3, radius: float, translation: Vec3, *, category: int = ALL_BITS,
                    mask: int = ALL_BITS, skip_colliders: bool = False,
                    ignore: Optional[BodyId] = None) -> Optional[Hit]:
        """The first body or collider hit by a sphere of `radius` swept along translation, or None."""
        out = ffi.new("kyupy_hit *")
        self._check(lib.kyupy_sphere_cast(self._world, _vec(origin, "origin"), radius,
                                          _vec(translation, "translation"),
                                          self._filter(category, mask, skip_colliders, ignore), out))
        return _hit(out)

    def _overlap(self, call: Any, args: Tuple[Any, ...], f: Any) -> npt.NDArray[Any]:
        count = ffi.new("int *")
        self._check(call(self._world, *args, f, ffi.NULL, 0, count))
        ids = np.empty(count[0], BODY_ID)
        self._check(call(self._w, *args, f, _ip(ids), count[0], count))
        return ids

    def overlap_sphere(self, center: Vec3, radius: float, *, category: int = ALL_BITS, mask: int = ALL_BITS,
                       ignore: Optional[BodyId] = None) -> npt.NDArray[Any]:
        """The bodies overlapping or touching the sphere, in slot order (dtype BODY_ID)."""
        return self._overlap(lib.kyupy_overlap_sphere, (_vec(center, "center"), radius),
                             self._filter(category, mask, False, ignore))

    def overlap_aabb(self, lower: Vec3, upper: Vec3, *, category: int = ALL_BITS, mask: int = ALL_BITS,
                     ignore: Optional[BodyId] = None) -> npt.NDArray[Any]:
        """The bodies whose sphere overlaps or touches the box [lower, upper], in slot order."""
        return self._overlap(lib.kyupy_overlap_aabb, (_vec(lower, "lower"), _vec(upper, "upper")),
                             self._filter(category, mask, False, ignore))

    def nearest_body(self, point: Vec3, max_distance: float = 3.4e38, *, category: int = ALL_BITS,
                     mask: int = ALL_BITS, ignore: Optional[BodyId] = None) -> Optional[Tuple[BodyId, float]]:
        """(body, distance) of the body whose surface is nearest to `point` within `max_distance`
        (distance = |point - centre| - radius), or None."""
        out = ffi.new("kyu_body_id *")
        dist = ffi.new("float *")
        self._check(lib.kyupy_nearest_body(self._world, _vec(point, "point"), max_distance,
                                           self._filter(category, mask, False, ignore), out, dist))
        return None if out.index1 == 0 else (BodyId(out.index1, out.world, out.generation), float(dist[0]))

    def body_distance(self, a: BodyId, b: BodyId) -> Distance:
        """Closest points of bodies A and B."""
        out = ffi.new("kyupy_distance *")
        self._check(lib.kyupy_body_distance(self._world, _body(a), _body(b), out))
        return _distance(out)

    def body_collider_distance(self, body: BodyId, collider: ColliderId) -> Distance:
        """Closest points of a body (A) and a collider (B)."""
        out = ffi.new("kyupy_distance *")
        self._check(lib.kyupy_body_collider_distance(self._world, _body(body), _body(collider), out))
        return _distance(out)

    def time_to_collision(self, a: BodyId, b: BodyId, horizon: float) -> Optional[float]:
        """Seconds until bodies A and B touch moving straight at their velocities, or None when
        they do not within `horizon` s."""
        will = ffi.new("bool *")
        t = ffi.new("float *")
        self._check(lib.kyu_body_time_to_collision(self._world, _body(a), _body(b), horizon, will, t))
        return float(t[0]) if will[0] else None

    # ---- what DEM work measures (measure.h) ------------------------------------------------------

    def enable_impact_forces(self, enable: bool = True) -> None:
        """From the next step on, keeps each impact's impulse so :meth:`body_forces` and
        :meth:`measure_box` count impacts too (``kyu_world_enable_impact_forces``; off by default, on
        in scene worlds unless ``world.impact_forces`` is false)."""
        self._check(lib.kyu_world_enable_impact_forces(self._world, bool(enable)))

    def body_forces(self, ids: Any = None) -> BodyForces:
        """Each body's force (N) and torque (N m) over the last step and how many bodies and
        colliders it touches: every body in slot order, or the bodies `ids`."""
        n = lib.kyu_world_body_count(self._world)
        f, t = np.zeros((n, 3), dtype=np.float32), np.zeros((n, 3), dtype=np.float32)
        c, k = np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
        arrays = ffi.new("kyu_body_force_arrays *", {"force": _fp(f), "torque": _fp(t),
                                                     "coordination": ffi.from_buffer("int32_t[]", c),
                                                     "wall_contacts": ffi.from_buffer("int32_t[]", k)})
        if lib.kyu_world_get_body_forces(self._w, arrays, n) < 0:
            raise error_for(lib.KYU_ERR_OUT_OF_MEMORY, ffi.string(lib.kyu_world_last_error(self._w)).decode())
        if ids is None:
            return BodyForces(f, t, c, k)
        rows = self.rows(ids)
        return BodyForces(f[rows], t[rows], c[rows], k[rows])

    def contact_network(self) -> ContactNetwork:
        """The contact network (``kyu_world_get_contact_network``), one entry per contact."""
        n = lib.kyu_world_get_contact_network(self._world, ffi.new("kyu_contact_arrays *"), 0)
        body, other = np.zeros(n, dtype=BODY_ID), np.zeros(n, dtype=BODY_ID)
        collider = np.zeros(n, dtype=COLLIDER_ID)
        point, normal = np.zeros((n, 3), np.float32), np.zeros((n, 3), np.float32)
        fn, ft, roll, gap = (np.zeros(n, np.float32), np.zeros((n, 3), np.float32), np.zeros((n, 3), np.float32),
                             np.zeros(n, np.float32))
        if n > 0:
            arrays = ffi.new("kyu_contact_arrays *", {
                "body": ffi.from_buffer("kyu_body_id[]", body), "other": ffi.from_buffer("kyu_body_id[]", other),
                "collider": ffi.from_buffer("kyu_collider_id[]", collider), "point": _fp(point),
                "normal": _fp(normal), "normal_force": _fp(fn), "tangent_force": _fp(ft),
                "rolling_torque": _fp(roll), "gap": _fp(gap)})
            lib.kyu_world_get_contact_network(self._w, arrays, n)
        return ContactNetwork(body, other, collider, point, normal, fn, ft, roll, gap)

    def measure_box(self, lower: Vec3, upper: Vec3) -> RegionMeasure:
        """The stress tensor (contacts and kinetic part, the virial of the bodies whose centre is in
        the box), packing fraction (the spheres cut by the box exactly) and coordination of the box
        [lower, upper] (``kyu_world_measure_box``)."""
        out = ffi.new("kyu_region_measure *")
        self._check(lib.kyupy_world_measure_box(self._world, _vec(lower, "lower"), _vec(upper, "upper"), out))
        tensor = lambda a: np.array(list(a), dtype=np.float64).reshape(3, 3)  # noqa: E731
        return RegionMeasure(int(out.bodies), float(out.volume), float(out.solid_volume),
                             float(out.packing_fraction), float(out.coordination), float(out.mass),
                             np.array(list(out.mean_velocity)), tensor(out.stress), tensor(out.contact_stress),
                             tensor(out.kinetic_stress), float(out.pressure))

    def write_contacts_vtk(self, path: Union[str, os.PathLike]) -> None:
        """Writes the contact network as VTK line polydata (.vtp) for ParaView, as ``kyu-sim
        --format contacts`` does: a line from A's centre to B's (or to the point on a collider) per
        contact, with the cell data normal_force, tangential_force, force, normal, body_a, body_b and
        collider."""
        self._file_check(lib.kyupy_write_network_vtp(self._world, self.time, os.fsencode(path)), path)

    def inserters(self) -> List[Dict[str, Any]]:
        """A scene world's inserters (its ``insert`` generators): each one's stats with its
        ``generator`` index (kyu-sim's summary.json reports the same). Empty for other worlds."""
        if self._scene == ffi.NULL:
            return []
        from .insert import inserter_stats
        return list(inserter_stats(self._scene))

    # ---- snapshots -------------------------------------------------------------------------------

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Saves the whole state (``kyu_world_save``): loading it and stepping gives the bits of
        never having stopped."""
        self._check(lib.kyu_world_save(self._world, os.fsencode(path)))

    def load(self, path: Union[str, os.PathLike], *, step: Optional[int] = None,
             inserters: Optional[Sequence[Dict[str, Any]]] = None) -> None:
        """Replaces the world's state by a snapshot; a bad file is refused whole (SnapshotError or
        KyuIOError) and the world is unchanged. `step` is the step the snapshot was taken at (it
        sets :attr:`step_index`); a scene world needs it (its emitters follow the clock), and a
        scene with inserters their :meth:`inserters` as they were when it was saved."""
        if self._scene != ffi.NULL:
            if step is None:
                raise InvalidArgumentError("a scene world needs the snapshot's step: load(path, step=...)")
            count = lib.kyu_scene_inserter_count(self._scene)
            if count > 0 and inserters is None:
                raise InvalidArgumentError("a scene with inserters needs their stats when it was saved: "
                                           "load(path, step=..., inserters=saved_world.inserters())")
            err = ffi.new("char[1024]")
            if lib.kyu_scene_resume(self._scene, os.fsencode(path), step, err, len(err)) != 0:
                raise SceneError(ffi.string(err).decode(errors="replace"), "scene", -1)
            if count > 0:
                from .insert import restore_scene_inserters
                restore_scene_inserters(self._scene, inserters or [])
            return
        self._check(lib.kyu_world_load(self._world, os.fsencode(path)))
        self._steps = step if step is not None else self._steps

    def to_bytes(self) -> bytes:
        """The snapshot in memory (``kyu_world_save_memory``)."""
        size = ffi.new("size_t *")
        self._check(lib.kyu_world_save_memory(self._world, ffi.NULL, 0, size))
        buf = bytearray(size[0])
        self._check(lib.kyu_world_save_memory(self._w, ffi.from_buffer(buf), len(buf), size))
        return bytes(buf)

    def load_bytes(self, data: bytes, *, step: Optional[int] = None) -> None:
        """Replaces the world's state by a snapshot from :meth:`to_bytes` (as :meth:`load`)."""
        if self.is_scene:
            raise InvalidArgumentError("a scene world loads snapshots from files: load(path, step=...)")
        self._check(lib.kyu_world_load_memory(self._world, ffi.from_buffer(data), len(data)))
        self._steps = step if step is not None else self._steps

    @classmethod
    def from_snapshot(cls, path: Union[str, os.PathLike]) -> "World":
        """A new world with the settings and state of a snapshot file."""
        w = cls()
        try:
            w.load(path)
        except BaseException:
            w.close()
            raise
        return w

    # ---- frame files -----------------------------------------------------------------------------

    def write_vtk(self, path: Union[str, os.PathLike], ids: Any = None) -> None:
        """Writes the bodies (every one, or `ids`) as a VTK XML PolyData file (.vtp) for ParaView:
        points with "radius", "velocity", "id" (index1), "angular_velocity", "orientation" (x, y, z,
        w), "force", "torque" and "coordination" (:meth:`body_forces`), the time as "TimeValue". The same
        writer as ``kyu-sim --format vtk``; see :class:`kyu.VtkSeries` for a time series."""
        sel = None if ids is None else as_body_ids(ids)
        status = lib.kyupy_write_vtp(self._world, ffi.NULL if sel is None else _ip(sel),
                                     0 if sel is None else len(sel), self.step_index, self.time, os.fsencode(path))
        self._file_check(status, path)

    def write_xyz(self, path: Union[str, os.PathLike], *, append: bool = False,
                  box: Union[str, Tuple[Vec3, Vec3], None] = "bodies", ids: Any = None) -> None:
        """Writes (or with `append`, adds) a frame of extended XYZ for OVITO: the columns
        ``species:S:1:pos:R:3:radius:R:1:velo:R:3:id:I:1:omega:R:3:orientation:R:4:force:R:3:torque:R:3:n_neighb:I:1``
        (OVITO's names for angular velocity, orientation, force, torque and coordination), the Time
        and Step, and the box as
        ``Lattice``, ``Origin`` and ``pbc="F F F"``: by default (``"bodies"``) the box of the bodies
        written, each as its sphere, as ``kyu-sim --format xyz`` writes it (a frame without bodies
        then has none); `box` (lower corner, upper corner) gives one; None writes none. The same
        writer as kyu-sim's."""
        sel = None if ids is None else as_body_ids(ids)
        box_arr: Any = ffi.NULL
        if isinstance(box, str):
            if box != "bodies":
                raise InvalidArgumentError(f'box must be "bodies", (lower, upper) or None, got {box!r}')
        elif box is not None:
            lo, hi = _vec(box[0], "box lower corner"), _vec(box[1], "box upper corner")
            box_arr = ffi.new("float[6]", lo + hi)
        status = lib.kyupy_write_xyz(self._world, ffi.NULL if sel is None else _ip(sel),
                                     0 if sel is None else len(sel), self.step_index, self.time, box_arr,
                                     1 if box == "bodies" else 0, os.fsencode(path), 1 if append else 0)
        self._file_check(status, path)

    def _file_check(self, status: int, path: Any) -> None:
        if status == lib.KYU_ERR_IO:
            err = ffi.errno
            raise KyuIOError(f"{os.fspath(path)}: cannot write: {os.strerror(err) if err else 'write error'}",
                             "KYU_ERR_IO", status)
        self._check(status)


def write_pvd(path: Union[str, os.PathLike], frames: Iterable[Tuple[float, str]]) -> None:
    """Writes a ParaView collection (.pvd) of (time, file) pairs; the file names as given (relative
    to the .pvd's directory)."""
    items = list(frames)
    names = [ffi.new("char[]", os.fsencode(f)) for _, f in items]
    times = ffi.new("double[]", [float(t) for t, _ in items] or [0.0])
    if lib.kyu_pvd_write(os.fsencode(path), len(items), times, ffi.new("char *[]", names) if names else ffi.NULL) != 0:
        raise KyuIOError(f"{os.fspath(path)}: cannot write: {os.strerror(ffi.errno)}", "KYU_ERR_IO", lib.KYU_ERR_IO)
