# SPDX-License-Identifier: MIT
"""The force chains of a settled bed: spheres (radii 2-3 cm, 2500 kg/m^3, friction 0.5) are inserted
without overlap into a box at a volume fraction of 0.15 (kyu.Inserter), fall, settle and sleep. The
contact network (World.contact_network) then carries the bed's weight: the floor's normal forces add
up to it (the side walls are frictionless, so they hold none of it), and the forces are spread wide
(the strong network, the contacts above the mean force, is about a third of them and carries most of
the weight, as photoelastic discs and DEM show). The box's stress (World.measure_box) is the virial
of the bodies in it: its sigma_yy times its volume is minus the moment of their weight, sum m g y.

Writes the network for ParaView (--vtk DIR: DIR/bed.vtp, the bodies, and DIR/contacts.vtp, a line per
contact with its normal_force: open both, apply a Tube filter to the lines scaled by normal_force)
and, with --png, a side view of the chains drawn with matplotlib (docs/force-chains.png).

    PYTHONPATH=build/python /usr/bin/python3 python/examples/force_chains.py --n 1500 --png chains.png
"""
import argparse
import os
import sys
from typing import Dict, Optional, Sequence

import numpy as np

import kyu


def run(n: int = 1500, half: float = 0.25, seed: int = 5, max_seconds: float = 30.0,
        vtk_dir: Optional[str] = None) -> Dict[str, object]:
    """Inserts n spheres, settles the bed until it sleeps; returns its network and measures (and
    writes bed.vtp and contacts.vtp into vtk_dir when given)."""
    mean_volume = 4 / 3 * np.pi * 0.0253 ** 3  # of radii uniform in [0.02, 0.03]
    height = n * mean_volume / (0.15 * 4 * half * half)  # the region that holds them at 0.15
    with kyu.World(body_capacity=n) as w:
        floor = w.add_collider("plane", friction=0.5)
        for normal in ((1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1)):
            w.add_collider("plane", normal=normal, position=tuple(-half * c for c in normal), friction=0.0)
        ins = kyu.Inserter(w, region={"shape": "box", "center": (0, height / 2 + 0.01, 0),
                                      "half_extents": (half, height / 2, half)},
                           radius={"distribution": "uniform", "min": 0.02, "max": 0.03}, density=2500, count=n,
                           attempts=1000, seed=seed, body=dict(friction=0.5, rolling_resistance=0.05))
        if ins.run(0) != n:
            raise RuntimeError(f"the inserter found room for {ins.stats['inserted']} of {n} spheres")
        steps = 0
        while w.sleeping_body_count < n and steps * w.fixed_dt < max_seconds:
            w.step(30)
            steps += 30
        net = w.contact_network()
        weight = float(w.masses().astype(np.float64).sum() * 9.81)
        on_floor = net.collider["index1"] == floor.index1
        bodies = net.collider["index1"] == 0
        fn = net.normal_force.astype(np.float64)
        mean = fn[bodies].mean()
        strong = bodies & (fn > mean)
        top = float((w.positions()[:, 1] + w.radii()).max())
        box = w.measure_box((-half, 0, -half), (half, top, half))  # the whole bed
        moment = float((w.masses().astype(np.float64) * 9.81 * w.positions()[:, 1]).sum())
        if vtk_dir:
            os.makedirs(vtk_dir, exist_ok=True)
            w.write_vtk(os.path.join(vtk_dir, "bed.vtp"))
            w.write_contacts_vtk(os.path.join(vtk_dir, "contacts.vtp"))
        return {
            "n": n, "asleep": w.sleeping_body_count, "seconds": steps * w.fixed_dt, "contacts": len(net),
            "weight": weight, "floor": float(fn[on_floor].sum()), "mean_force": float(mean),
            "strong_share": float(strong.sum() / bodies.sum()),
            "strong_load": float(fn[strong].sum() / fn[bodies].sum()),
            "coordination": box.coordination, "packing": box.packing_fraction,
            "stress_yy_volume": float(box.stress[1, 1] * box.volume), "weight_moment": moment,
            "segments": np.stack([w.positions(net.body[bodies]), w.positions(net.other[bodies])], 1),
            "segment_force": fn[bodies],
        }


def plot(result: Dict[str, object], path: str) -> None:
    """A side view (x, y) of the chains in a slice 6 cm thick through the middle: each contact a
    line, as wide and dark as its force."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    seg3 = np.asarray(result["segments"])
    mid = np.abs(seg3[:, :, 2].mean(axis=1)) < 0.03
    seg = seg3[mid][:, :, :2]
    f = np.asarray(result["segment_force"])[mid] / float(result["mean_force"])
    order = np.argsort(f)
    fig, ax = plt.subplots(figsize=(5.2, 5.2), dpi=110)
    lines = LineCollection(seg[order], linewidths=0.4 + 1.6 * np.clip(f[order], 0, 3), cmap="inferno_r",
                           array=np.clip(f[order], 0, 3))
    ax.add_collection(lines)
    ax.autoscale()
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    fig.colorbar(lines, ax=ax, label="normal force / mean")
    ax.set_title(f"force chains of a settled bed ({result['n']} spheres):\na slice 6 cm thick, seen from the side")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--png", help="a side view of the chains")
    ap.add_argument("--vtk", help="a directory for bed.vtp and contacts.vtp (ParaView)")
    args = ap.parse_args(argv)
    r = run(n=args.n, vtk_dir=args.vtk)
    print(f"{r['n']} spheres, {r['asleep']} asleep after {r['seconds']:.2f} s: {r['contacts']} contacts, "
          f"coordination {r['coordination']:.2f}, packing of the bed {r['packing']:.3f}")
    print(f"weight {r['weight']:.2f} N, floor {r['floor']:.2f} N; sigma_yy V {r['stress_yy_volume']:.2f} N m "
          f"against -sum m g y {-r['weight_moment']:.2f} N m")
    print(f"mean contact force {r['mean_force']:.3f} N; {100 * r['strong_share']:.0f}% of the contacts are above "
          f"it and carry {100 * r['strong_load']:.0f}% of the load")
    if args.png:
        plot(r, args.png)
    return r


if __name__ == "__main__":
    main(sys.argv[1:])
