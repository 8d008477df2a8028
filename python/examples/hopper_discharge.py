# SPDX-License-Identifier: MIT
"""A hopper discharge with a lognormal fill: a conical hopper (a triangle mesh, the frustum of
hopper.stl: outlet 16 cm across at 0.4 m, 50 cm across at 0.7 m, then a cylinder) is filled by a
kyu.Inserter at 3 kg/s with glass beads whose radii are lognormal (median 1.2 cm, sigma 0.25,
cut at 0.7 and 2 cm), its outlet closed by a plate. Once the fill has settled the plate is removed
and the beads run out onto the floor: the mass that has left, read from the bulk positions every
tenth of a second, rises in a straight line while the hopper drains (a granular flow's rate does
not depend on the height of the fill above it, unlike a liquid's), and the rate is compared with
Beverloo's law W = C rho_b sqrt(g) (D - k d)^(5/2) (C 0.58, k 1.5; rho_b the bulk density, d the
mean diameter), which holds for flat-bottomed silos within some tens of percent; a steep cone
discharges faster.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/hopper_discharge.py --kg 30
"""
import argparse
import math
import sys
from typing import Dict, Optional, Sequence

import numpy as np

import kyu

OUTLET_Y, OUTLET_R = 0.4, 0.08
RINGS = [(OUTLET_R, OUTLET_Y), (0.25, 0.7), (0.25, 1.6)]  # (radius, height) of the walls' rings


def hopper_mesh(segments: int = 32):
    """The hopper's walls: rings of `segments` vertices joined by two triangles a quad."""
    ang = 2 * np.pi * np.arange(segments) / segments
    pts = np.concatenate([np.stack([r * np.cos(ang), np.full(segments, y), r * np.sin(ang)], 1) for r, y in RINGS])
    tris = []
    for ring in range(len(RINGS) - 1):
        for k in range(segments):
            a, b = ring * segments + k, ring * segments + (k + 1) % segments
            tris += [(a, b + segments, b), (a, a + segments, b + segments)]
    return pts, np.array(tris, dtype=np.int32)


def hopper_volume(top: float) -> float:
    """The hopper's volume from its outlet up to height `top`: a frustum, then the cylinder."""
    (r0, y0), (r1, y1) = RINGS[0], RINGS[1]
    h = min(top, y1) - y0
    rt = r0 + (r1 - r0) * h / (y1 - y0)
    return math.pi / 3 * h * (r0 * r0 + r0 * rt + rt * rt) + math.pi * r1 * r1 * max(0.0, top - y1)


def run(kg: float = 30.0, seed: int = 7, record_every: float = 0.05) -> Dict[str, object]:
    """Fills the hopper with `kg` of beads, opens it, and records the mass that has left it."""
    with kyu.World() as w:
        w.add_collider("plane", friction=0.5)
        pts, tris = hopper_mesh()
        w.add_collider("mesh", points=pts, triangles=tris, friction=0.3)
        plate = w.add_collider("box", position=(0, OUTLET_Y - 0.01, 0), half_extents=(0.12, 0.01, 0.12), friction=0.3)
        radius = {"distribution": "lognormal", "median": 0.012, "sigma": 0.25, "min": 0.007, "max": 0.02}
        ins = kyu.Inserter(w, region={"shape": "cylinder", "center": (0, 1.35, 0), "radius": 0.22, "half_height": 0.2},
                           radius=radius, density=2500, mass_rate=3.0, velocity=(0, -0.5, 0), cone=10, seed=seed,
                           body=dict(friction=0.5, rolling_resistance=0.05))
        fill = kg / 3.0
        while w.time < fill or w.sleeping_body_count < len(w):  # fill, then settle until it sleeps
            if w.time < fill:
                ins.run(w.time)
            w.step()
            if w.time > fill + 20:
                break
        stats = ins.stats
        masses, radii = w.masses().astype(np.float64), w.radii().astype(np.float64)
        total = masses.sum()
        d = 2 * (radii * masses).sum() / total  # the mass-weighted mean diameter
        # The fill's bulk density: its mass over the volume it fills in the hopper.
        top = float((w.positions()[:, 1] + radii).max())
        w.remove_collider(plate)
        times, left = [], []
        while True:
            y = w.positions()[:, 1]
            times.append(w.time), left.append(float(masses[y < OUTLET_Y - 0.02].sum()))
            if left[-1] >= 0.98 * total or len(times) > 600:
                break
            w.step(max(1, round(record_every / w.fixed_dt)))
        times_a, left_a = np.array(times) - times[0], np.array(left)
        # The rate: a straight line through the flow between 20% and 70% of the mass.
        flow = (left_a > 0.2 * total) & (left_a < 0.7 * total)
        rate = float(np.polyfit(times_a[flow], left_a[flow], 1)[0]) if flow.sum() >= 3 else float("nan")
        bulk = total / hopper_volume(top)
        beverloo = 0.58 * bulk * math.sqrt(9.81) * (2 * OUTLET_R - 1.5 * d) ** 2.5
        return {"inserted": stats["inserted"], "mass": total, "mass_requested": stats["mass_requested"],
                "mean_diameter": d, "bulk_density": bulk, "times": times_a, "left": left_a, "rate": rate,
                "beverloo": beverloo, "drained": left_a[-1] / total}


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kg", type=float, default=30.0, help="the fill, kg (at 3 kg/s)")
    args = ap.parse_args(argv)
    r = run(kg=args.kg)
    print(f"inserted {r['inserted']} beads, {r['mass']:.2f} kg (mean diameter {1000 * r['mean_diameter']:.1f} mm, "
          f"bulk density {r['bulk_density']:.0f} kg/m^3)")
    for t, m in zip(r["times"][::4], r["left"][::4]):
        print(f"  t={t:5.2f} s  {m:6.2f} kg out")
    print(f"discharge rate {r['rate']:.2f} kg/s (Beverloo, flat bottom: {r['beverloo']:.2f} kg/s); "
          f"{100 * r['drained']:.0f}% drained")
    return r


if __name__ == "__main__":
    main(sys.argv[1:])
