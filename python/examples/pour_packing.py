# SPDX-License-Identifier: MIT
"""A pour and its packing-fraction profile: spheres (radii spread by +-10%) rain into a square box,
a layer at random places every tenth of a second, settle (until every body sleeps, or a time
limit), and the fraction of each horizontal slab that is solid is computed exactly from the bulk
arrays: a sphere of radius r centred at height c fills pi (r^2 (b - a) - ((b - c)^3 - (a - c)^3) / 3)
of a slab a < y < b. A poured packing of frictional spheres sits near 0.6 in the middle of the bed
(random close packing is 0.64, a crystal 0.74), lower against the floor and at the top. The world's
linear slop (the overlap resting contacts keep) is set to 1% of a radius so overlaps do not inflate
the fraction. Prints the profile; --plot saves it as a PNG.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/pour_packing.py --n 2000 --plot pour.png
"""
import argparse
import math
import sys
from typing import Dict, Optional, Sequence

import numpy as np

import kyu


def slab_volumes(y: np.ndarray, r: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The volume of every sphere (centre height y, radius r) inside every slab between `edges`,
    summed per slab."""
    a = np.clip(edges[:-1, None], y - r, y + r)  # the slab clipped to the sphere's extent
    b = np.clip(edges[1:, None], y - r, y + r)
    vol = math.pi * (r * r * (b - a) - ((b - y) ** 3 - (a - y) ** 3) / 3)
    return vol.sum(axis=1)


def run(n: int = 2000, radius: float = 0.05, width: float = 0.8, friction: float = 0.5, seconds: float = 8.0,
        slab: float = 0.05, seed: int = 3) -> Dict[str, object]:
    """Pours n spheres, settles, returns the profile (slab centres and their fractions)."""
    rng = np.random.default_rng(seed)
    with kyu.World(gravity=(0, -9.81, 0), fixed_dt=1 / 120, sleep_time=0.3, body_capacity=n,
                   linear_slop=0.01 * radius) as w:
        h = width / 2
        # The bed if the spheres packed at 0.5: the layers fall from 0.5 m above it, the walls end
        # 1 m above it.
        bed = n * 4 / 3 * math.pi * radius ** 3 / (0.5 * width * width)
        release, wall = bed + 0.5, bed + 1.0
        w.add_collider("plane", friction=friction)
        for x, z, hx, hz in ((-h - 0.1, 0, 0.1, h + 0.2), (h + 0.1, 0, 0.1, h + 0.2),
                             (0, -h - 0.1, h + 0.2, 0.1), (0, h + 0.1, h + 0.2, 0.1)):
            w.add_collider("box", position=(x, wall / 2, z), half_extents=(hx, wall / 2, hz), friction=friction)
        # A layer: one sphere in each cell of a grid over the box, anywhere in its cell (cells a
        # little wider than the largest sphere, so no two overlap), falling with a random sideways
        # speed. The layer before has fallen more than a diameter in the 0.1 s between layers.
        cells = int(width / (2.3 * radius))
        spacing = width / cells
        poured, dt = 0, w.fixed_dt
        steps = int(seconds / dt)
        for s in range(steps):
            if poured < n and s % 12 == 0:
                k = min(n - poured, cells * cells)
                cell = rng.permutation(cells * cells)[:k]
                room = spacing / 2 - 1.1 * radius
                xz = (np.stack([cell % cells, cell // cells], 1) + 0.5) * spacing - h
                xz += rng.uniform(-room, room, size=(k, 2))
                pos = np.column_stack([xz[:, 0], np.full(k, release), xz[:, 1]])
                vel = np.column_stack([rng.uniform(-0.3, 0.3, k), np.full(k, -1.0), rng.uniform(-0.3, 0.3, k)])
                radii = radius * rng.uniform(0.9, 1.1, size=k)
                w.add_bodies(pos, vel, radius=radii, mass=1000 * 4 / 3 * math.pi * radii ** 3, restitution=0.1,
                             friction=friction)
                poured += k
            w.step()
            if poured == n and w.sleeping_body_count == n:
                break
        p, r = w.positions(), w.radii()
        t, asleep = w.time, w.sleeping_body_count
    top = float(np.max(p[:, 1] + r))
    edges = np.arange(0.0, top + slab, slab)
    edges[0] = min(0.0, float(np.min(p[:, 1] - r)))  # resting contacts may sink into the floor by the slop
    fraction = slab_volumes(p[:, 1].astype(np.float64), r.astype(np.float64), edges) / (width * width * slab)
    y = (edges[:-1] + edges[1:]) / 2
    # The middle of the bed: more than 4 radii above the floor and 8 below the top.
    middle = (y > 4 * radius) & (y < top - 8 * radius)
    return {"y": y, "fraction": fraction, "top": top, "middle": float(np.mean(fraction[middle])) if middle.any()
            else float("nan"), "seconds": t, "asleep": asleep, "n": n,
            "solid": float(np.sum(4 / 3 * math.pi * r.astype(np.float64) ** 3))}


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--plot", default="", help="save the profile as this PNG")
    args = ap.parse_args(argv)
    res = run(args.n, seconds=args.seconds)
    print(f"{res['n']} spheres poured, {res['asleep']} asleep after {res['seconds']:.2f} s, bed top "
          f"{res['top']:.3f} m")
    print("  height (m)  packing fraction")
    for y, f in zip(res["y"], res["fraction"]):  # type: ignore[call-overload]
        print(f"  {y:9.3f}   {f:.3f} {'#' * int(round(f * 50))}")
    print(f"  middle of the bed: {res['middle']:.3f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(4.5, 5), dpi=100)
        ax.plot(res["fraction"], res["y"], "o-")
        ax.axvline(0.64, ls="--", color="gray", label="random close packing")
        ax.set_xlabel("packing fraction")
        ax.set_ylabel("height (m)")
        ax.set_xlim(0, 0.75)
        ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"plot: {args.plot}")
    return res


if __name__ == "__main__":
    main(sys.argv[1:])
