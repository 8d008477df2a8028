# SPDX-License-Identifier: MIT
"""Bounce heights: balls dropped on a floor with restitution e rebound to e^2 of the height before,
bounce after bounce. Records every ball's height each step in one bulk read, finds the tops of the
flights, prints the ratios of successive tops next to e^2, and plots the heights on a log scale
against the e^(2k) lines (matplotlib, Agg backend: a PNG, no window).

    PYTHONPATH=build/python /usr/bin/python3 python/examples/bounce_heights.py --out bounce.png
"""
import argparse
import sys
from typing import Dict, List, Optional, Sequence

import numpy as np

import kyu

RESTITUTIONS = (0.5, 0.7, 0.85, 0.95)


def tops(heights: np.ndarray) -> np.ndarray:
    """The local maxima of a sampled flight (the tops of the arcs), the first sample included."""
    inner = (heights[1:-1] > heights[:-2]) & (heights[1:-1] >= heights[2:])
    return np.concatenate([heights[:1], heights[1:-1][inner]])


def run(seconds: float = 5.0, drop: float = 2.0, radius: float = 0.1, dt: float = 1 / 240) -> Dict[str, object]:
    """Drops one ball per restitution; returns the heights of the tops above the resting height."""
    with kyu.World(gravity=(0, -9.81, 0), fixed_dt=dt, restitution_threshold=0.05) as w:
        w.add_collider("plane", restitution=0.0)  # a pair bounces with the larger of its restitutions
        for i, e in enumerate(RESTITUTIONS):
            w.add_body(position=(i, radius + drop, 0), radius=radius, restitution=e, friction=0.0)
        steps = int(round(seconds / dt))
        y = np.empty((steps + 1, len(RESTITUTIONS)), np.float32)
        y[0] = w.positions()[:, 1]
        buf = np.empty((len(RESTITUTIONS), 3), np.float32)
        for s in range(steps):
            w.step()
            y[s + 1] = w.positions(out=buf)[:, 1]
    heights = {e: tops(y[:, i] - radius) for i, e in enumerate(RESTITUTIONS)}
    return {"time": np.arange(steps + 1) * dt, "y": y, "tops": heights}


def ratios(top: np.ndarray, min_height: float = 0.02) -> np.ndarray:
    """Successive ratios of the tops that are still clearly above the floor."""
    top = top[top > min_height]
    return top[1:] / top[:-1]


def plot(result: Dict[str, object], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    for e, top in result["tops"].items():  # type: ignore[union-attr]
        k = np.arange(len(top))
        (line,) = ax.semilogy(k, top, "o", label=f"e = {e}")
        ax.semilogy(k, top[0] * (e * e) ** k, "-", color=line.get_color(), alpha=0.5)
    ax.set_xlabel("bounce")
    ax.set_ylabel("height of the top above rest (m)")
    ax.set_title("kyu: rebound heights (dots) and h0 e^(2k) (lines)")
    ax.set_ylim(1e-3, 3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--out", default="bounce-heights.png", help="the plot (PNG); '' for none")
    args = ap.parse_args(argv)
    result = run(args.seconds)
    print("e      e^2     ratios of successive tops")
    for e, top in result["tops"].items():  # type: ignore[union-attr]
        r: List[str] = [f"{x:.4f}" for x in ratios(top)[:5]]
        print(f"{e:<6} {e * e:.4f}  {' '.join(r)}")
    if args.out:
        plot(result, args.out)
        print(f"plot: {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
