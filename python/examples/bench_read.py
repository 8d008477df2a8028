# SPDX-License-Identifier: MIT
"""How long reading state into numpy takes: positions() of N bodies (a new array, and into a
buffer given as `out`), with the data in cache and after the caches were flushed (a 64 MB array
walked between reads), and with free slots in the world (the copy walks the slots instead of one
memcpy). Prints the median of many reads, in milliseconds.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/bench_read.py 100000
"""
import argparse
import time

import numpy as np

import kyu


def median_ms(fn, repeat: int, flush: bool = False) -> float:
    junk = np.ones(8 << 20) if flush else None  # 64 MB: more than the caches
    samples = []
    for _ in range(repeat):
        if junk is not None:
            junk += 1.0
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return float(np.median(samples)) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, nargs="?", default=100_000)
    ap.add_argument("--repeat", type=int, default=301)
    args = ap.parse_args()
    n = args.n
    with kyu.World(gravity=(0, 0, 0), body_capacity=n) as w:
        k = int(np.ceil(n ** (1 / 3)))
        i = np.arange(n)
        ids = w.add_bodies(np.column_stack([i % k, (i // k) % k, i // (k * k)]).astype(np.float32), radius=0.4)
        w.step()
        out = np.empty((n, 3), np.float32)
        print(f"{n} bodies, median of {args.repeat} reads:")
        print(f"  positions()            {median_ms(w.positions, args.repeat):.4f} ms (in cache)")
        print(f"  positions(out=buffer)  {median_ms(lambda: w.positions(out=out), args.repeat):.4f} ms (in cache)")
        print(f"  positions()            {median_ms(w.positions, args.repeat // 3, flush=True):.4f} ms (caches flushed)")
        print(f"  velocities()           {median_ms(w.velocities, args.repeat):.4f} ms (in cache)")
        print(f"  numpy's own copy       {median_ms(out.copy, args.repeat):.4f} ms (of the same array)")
        for j in range(0, n, 1000):
            w.remove_body(ids[j])
        holes = np.empty((len(w), 3), np.float32)
        print(f"  positions(out=buffer)  {median_ms(lambda: w.positions(out=holes), args.repeat):.4f} ms "
              f"(1 slot in 1000 free)")


if __name__ == "__main__":
    main()
