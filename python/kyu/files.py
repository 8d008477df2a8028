# SPDX-License-Identifier: MIT
"""Frame series for analysis tools: a ParaView time series of .vtp files (the XYZ trajectory needs
no helper: ``world.write_xyz(path, append=True)`` adds a frame)."""
from __future__ import annotations

import os
from typing import Any, List, Tuple, Union

from .world import World, write_pvd


class VtkSeries:
    """A ParaView time series: each :meth:`add` writes the world's bodies as DIR/frame_STEP.vtp
    and rewrites the collection (a .pvd that ParaView opens as one data set with a time axis).
    DIR is the .pvd's path without ".pvd" (``out/run.pvd`` -> ``out/run/``), as kyu-sim writes
    ``frames.pvd`` and ``frames/``.

        with kyu.VtkSeries("out/run.pvd") as series:
            for _ in range(100):
                world.step(10)
                series.add(world)
    """

    def __init__(self, pvd_path: Union[str, os.PathLike]) -> None:
        self.path = os.fspath(pvd_path)
        base = os.path.basename(self.path)
        self.directory = base[:-4] if base.endswith(".pvd") else base + "_frames"
        os.makedirs(os.path.join(os.path.dirname(self.path) or ".", self.directory), exist_ok=True)
        self.frames: List[Tuple[float, str]] = []

    def add(self, world: World, ids: Any = None) -> str:
        """Writes a frame of `world` (every body, or `ids`) at its current step; returns the file's
        path. A frame of a step already in the series replaces it."""
        name = f"{self.directory}/frame_{world.step_index:06d}.vtp"
        world.write_vtk(os.path.join(os.path.dirname(self.path) or ".", name), ids)
        self.frames = [f for f in self.frames if f[1] != name] + [(world.time, name)]
        write_pvd(self.path, self.frames)
        return name

    def __enter__(self) -> "VtkSeries":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass
