# SPDX-License-Identifier: MIT
"""kyu (球, "ball"): a small, exact physics engine for rigid sphere particles, from Python.

    import kyu
    with kyu.World(gravity=(0, -9.81, 0)) as w:
        w.add_collider("plane")
        h = w.add_body(position=(0, 2, 0), radius=0.25, restitution=0.5)
        w.step(120)
        print(w.position(h), w.positions().shape)

The engine is kyu's C library, linked into the extension ``kyu._kyu`` (cffi, API mode). State
comes and goes in bulk as numpy arrays (``positions()``, ``velocities()``, ``set_positions()``...)
in one call each. Errors raise :class:`KyuError` subclasses with kyu's message. See docs/python.md.
"""
from .errors import (CapacityError, InvalidArgumentError, KyuError, KyuIOError, KyuMemoryError, LockedError,
                     SceneError, SnapshotError, StaleHandleError)
from .files import VtkSeries
from .insert import Inserter
from .world import (BODY_ID, COLLIDER_ID, BodyForces, BodyId, ColliderId, ContactEvents, ContactNetwork, Distance, Hit,
                    ImpactEvents, RegionMeasure, World, as_body_ids, quat_from_axis_angle, write_pvd)

__version__ = "0.2.0"

__all__ = [
    "World", "BodyId", "ColliderId", "BODY_ID", "COLLIDER_ID", "ContactEvents", "ImpactEvents", "Hit", "Distance",
    "Inserter", "BodyForces", "ContactNetwork", "RegionMeasure",
    "VtkSeries", "write_pvd", "as_body_ids", "quat_from_axis_angle", "KyuError", "InvalidArgumentError",
    "StaleHandleError", "CapacityError", "LockedError", "KyuMemoryError", "KyuIOError", "SnapshotError", "SceneError",
]
