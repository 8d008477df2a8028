# SPDX-License-Identifier: MIT
"""The benchmark scene GAS(N) of tools/bench.c, built from Python: N elastic spheres (radius 0.5)
on a cubic lattice with random velocities (the LCG of docs/benchmarks.md, seed 12345) in a closed box of six
walls at packing fraction 0.1, no gravity. Built to the same bits as the C bench, so the state hash
after the same steps is the bench's, and stepping it times the engine through the binding.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/bench_gas.py 10000 --steps 600

prints ms per step and the state hash, as ``build/tools/bench gas 10000 --steps 600`` does.
"""
import argparse
import math
import time

import numpy as np

import kyu

F32 = np.float32


class Lcg:
    """docs/benchmarks.md's generator: state = state * 1664525 + 1013904223 (mod 2^32)."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def frand(self) -> float:
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) * (1.0 / 16777216.0)


def gas_world(n: int, workers: int = 1) -> kyu.World:
    """GAS(n) exactly as tools/bench.c's run_gas builds it (float arithmetic where it uses float)."""
    m = 1
    while m * m * m < n:
        m += 1
    g_edge = math.cbrt(n * (4.0 / 3.0) * math.pi * 0.125 / 0.1)
    w = kyu.World(gravity=(0, 0, 0), workers=workers, body_capacity=n, restitution_threshold=0.0)
    g = F32(g_edge)
    one = F32(1)
    walls = [((-one, -one, -one), (F32(0), g + one, g + one)), ((g, -one, -one), (g + one, g + one, g + one)),
             ((-one, -one, -one), (g + one, F32(0), g + one)), ((-one, g, -one), (g + one, g + one, g + one)),
             ((-one, -one, -one), (g + one, g + one, F32(0))), ((-one, -one, g), (g + one, g + one, g + one))]
    for lo, hi in walls:  # bench.c's add_wall: centre and half extents in float
        lo, hi = np.array(lo, F32), np.array(hi, F32)
        w.add_collider("box", position=F32(0.5) * (lo + hi), half_extents=F32(0.5) * (hi - lo),
                       rotation=(0, 0, 0, 1), restitution=1, friction=0)
    rng = Lcg(12345)
    spacing = g_edge / m
    pos = np.empty((n, 3), F32)
    vel = np.empty((n, 3), F32)
    for i in range(n):
        a, b, c = i % m, (i // m) % m, i // (m * m)
        pos[i] = (spacing * (a + 0.5), spacing * (b + 0.5), spacing * (c + 0.5))
        vel[i] = (10 * (rng.frand() - 0.5), 10 * (rng.frand() - 0.5), 10 * (rng.frand() - 0.5))
    w.add_bodies(pos, vel, radius=0.5, mass=1.0, restitution=1.0, friction=0.0, linear_damping=0.0)
    return w


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, nargs="?", default=1000)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    with gas_world(args.n, args.workers) as w:
        t0 = time.perf_counter()
        w.step(args.steps)
        ms = (time.perf_counter() - t0) * 1e3 / args.steps
        print(f"scene=gas n={args.n} workers={args.workers} steps={args.steps} ms_per_step={ms:.4f} "
              f"state_hash=0x{w.state_hash():016x}")


if __name__ == "__main__":
    main()
