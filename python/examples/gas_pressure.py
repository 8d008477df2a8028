# SPDX-License-Identifier: MIT
"""Hard-sphere gas pressure: N elastic, frictionless spheres in a closed box without gravity. The
pressure is measured as the walls feel it, from the impact events: every impact of a sphere of mass
m on a wall at normal speed v gives the wall 2 m v of momentum (restitution 1). Summed over the
walls' area and the time, that is P. With kT = 2 KE / 3N from the kinetic energy, it is compared
with the ideal gas, P = n kT, and with Carnahan-Starling's hard-sphere equation of state,
P = n kT (1 + f + f^2 - f^3) / (1 - f)^3 at the packing fraction f.

A sphere's centre stays r from every wall, so the box its centre moves in (edge L - 2r) is the
volume and the area the pressure is taken over. Which density n? A wall gathers spheres in a layer
against it, so a small box's middle holds fewer than N / V; the pressure on the wall is the bulk's,
at the density of the middle. Both are printed: n = N / V (the nominal fraction) and n measured in
the middle of the box (its centres more than 4 radii from every wall), read in bulk every step.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/gas_pressure.py --n 2000 --fraction 0.2
"""
import argparse
import math
import sys
from typing import Dict, Optional, Sequence

import numpy as np

import kyu


def carnahan_starling(f: float) -> float:
    return (1 + f + f * f - f ** 3) / (1 - f) ** 3


def run(n: int = 2000, fraction: float = 0.2, radius: float = 0.1, speed: float = 1.0, settle: int = 300,
        measure: int = 1200, seed: int = 1) -> Dict[str, float]:
    """Builds the gas at packing fraction `fraction` of the centres' box, lets it mix for `settle`
    steps, then measures the wall pressure and the density in the middle over `measure` steps."""
    v_sphere = 4 / 3 * math.pi * radius ** 3
    inner = (n * v_sphere / fraction) ** (1 / 3)  # the edge the centres move in
    edge = inner + 2 * radius
    rng = np.random.default_rng(seed)
    with kyu.World(gravity=(0, 0, 0), enable_sleep=False, enable_impact_events=True,
                   restitution_threshold=0.0, body_capacity=n) as w:
        h = edge / 2
        for axis in range(3):  # six planes facing in
            for sign in (-1, 1):
                normal = [0.0, 0.0, 0.0]
                normal[axis] = -sign
                point = [0.0, 0.0, 0.0]
                point[axis] = sign * h
                w.add_collider("plane", position=point, normal=normal, restitution=1.0, friction=0.0)
        # A cubic lattice filling the inner box, random directions at one speed (the collisions make
        # the speeds Maxwell's within a few collision times).
        m = math.ceil(n ** (1 / 3))
        spacing = inner / m
        grid = np.stack(np.meshgrid(*[np.arange(m)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
        pos = (grid + 0.5) * spacing - inner / 2
        if spacing < 2 * radius * 1.001:
            raise ValueError(f"packing fraction {fraction} is too dense for a cubic lattice start")
        dirs = rng.normal(size=(n, 3))
        vel = speed * dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
        vel -= vel.mean(axis=0)  # no drift of the whole gas
        w.add_bodies(pos, vel, radius=radius, mass=1.0, restitution=1.0, friction=0.0)
        w.step(settle)
        core = inner / 2 - 4 * radius  # half edge of the middle cube
        if core <= 0:
            raise ValueError(f"the box (edge {edge:.3g} m) is too small to have a middle: use more spheres")
        kt_sum, impulse, in_core = 0.0, 0.0, 0
        buf = np.empty((n, 3), np.float32)
        for _ in range(measure):
            w.step()
            ev = w.impact_events()
            on_wall = ev.collider["index1"] != 0
            impulse += 2.0 * 1.0 * float(np.sum(ev.approach_speed[on_wall], dtype=np.float64))
            kt_sum += 2.0 * w.kinetic_energy() / (3 * n)
            in_core += int(np.count_nonzero(np.all(np.abs(w.positions(out=buf)) < core, axis=1)))
        seconds = measure * w.fixed_dt
    kt = kt_sum / measure
    pressure = impulse / (6 * inner * inner * seconds)
    density = n / inner ** 3
    core_density = in_core / measure / (2 * core) ** 3
    core_fraction = core_density * v_sphere
    return {"n": n, "fraction": fraction, "pressure": pressure, "kT": kt, "seconds": seconds,
            "density": density, "core_density": core_density, "core_fraction": core_fraction,
            "P_ideal": density * kt, "P_carnahan_starling": density * kt * carnahan_starling(fraction),
            "P_carnahan_starling_core": core_density * kt * carnahan_starling(core_fraction)}


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--fraction", type=float, default=0.2)
    ap.add_argument("--settle", type=int, default=300)
    ap.add_argument("--measure", type=int, default=1200)
    args = ap.parse_args(argv)
    r = run(args.n, args.fraction, settle=args.settle, measure=args.measure)
    print(f"{r['n']} spheres at packing fraction {r['fraction']:.3f}, measured over {r['seconds']:.1f} s, "
          f"kT = {r['kT']:.4f} J")
    print(f"  wall pressure, measured:                   {r['pressure']:.4f} Pa")
    print(f"  ideal gas, n = N/V:                        {r['P_ideal']:.4f} Pa")
    print(f"  Carnahan-Starling, n = N/V (f {r['fraction']:.3f}):     {r['P_carnahan_starling']:.4f} Pa")
    print(f"  Carnahan-Starling, n of the middle (f {r['core_fraction']:.3f}): "
          f"{r['P_carnahan_starling_core']:.4f} Pa")
    return r


if __name__ == "__main__":
    main(sys.argv[1:])
