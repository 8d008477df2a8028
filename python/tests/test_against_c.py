# SPDX-License-Identifier: MIT
"""The same numbers as the C engine's own tools: a scene stepped from Python ends in kyu-sim's
state hash (bit-identical bodies), and GAS built from Python reaches tools/bench's state hash."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

import kyu
from bench_gas import gas_world


@pytest.mark.parametrize("scene,steps", [("gas", 120), ("pour-bowl", 150), ("shapes", 120), ("pile", 60)])
def test_scene_stepped_from_python_ends_in_kyu_sims_state(scene, steps, root, tool, tmp_path):
    path = os.path.join(root, "samples", "scenes", scene + ".json")
    subprocess.run([tool("kyu-sim"), path, "--steps", str(steps), "--format", "none", "--out", str(tmp_path),
                    "--quiet"], check=True)
    with open(tmp_path / "summary.json") as f:
        summary = json.load(f)
    with kyu.World.from_scene(path) as w:
        w.step(steps)
        assert w.step_index == steps
        assert len(w) == summary["bodies"]
        assert f"{w.state_hash():016x}" == summary["state_hash"]
        assert w.kinetic_energy() == pytest.approx(summary["kinetic_energy"], rel=1e-12)


def test_scene_threads_and_seed_overrides_match_kyu_sim(root, tool, tmp_path):
    path = os.path.join(root, "samples", "scenes", "gas.json")
    subprocess.run([tool("kyu-sim"), path, "--steps", "30", "--seed", "77", "--threads", "2", "--format", "none",
                    "--out", str(tmp_path), "--quiet"], check=True)
    with open(tmp_path / "summary.json") as f:
        want = json.load(f)["state_hash"]
    with kyu.World.from_scene(path, seed=77, threads=2) as w:
        assert w.settings()["worker_count"] == 2
        w.step(30)
        assert f"{w.state_hash():016x}" == want
    with kyu.World.from_scene(path) as w:  # the scene's own seed: another state
        w.step(30)
        assert f"{w.state_hash():016x}" != want


def test_gas_built_from_python_reaches_the_benchs_state(tool):
    out = subprocess.run([tool("bench"), "gas", "1000", "--steps", "60"], check=True, capture_output=True,
                         text=True).stdout
    want = int(re.search(r"state_hash=0x([0-9a-f]+)", out).group(1), 16)
    with gas_world(1000) as w:
        w.step(60)
        assert w.state_hash() == want


def test_a_bad_scene_raises_the_loaders_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"bodies": [{"position": [0, 1, 0], "radius": -1}]}')
    with pytest.raises(kyu.SceneError, match=r"bad.json: key `bodies\[0\].radius`: must be > 0"):
        kyu.World.from_scene(bad)
    with pytest.raises(kyu.SceneError, match=r"<text>:1:\d+: syntax error"):
        kyu.World.from_scene_text('{"bodies": [', name="<text>")


def test_scene_snapshot_resumes_on_the_scenes_clock(root, tmp_path):
    path = os.path.join(root, "samples", "scenes", "shapes.json")  # it has an emitter
    with kyu.World.from_scene(path) as w:
        w.step(100)
        w.save(tmp_path / "s.kys")
        w.step(80)
        want = w.state_hash()
    with kyu.World.from_scene(path) as w:
        with pytest.raises(kyu.InvalidArgumentError, match="step"):
            w.load(tmp_path / "s.kys")
        w.load(tmp_path / "s.kys", step=100)
        assert w.step_index == 100
        w.step(80)
        assert w.state_hash() == want
        with pytest.raises(kyu.KyuError, match="step\\(\\)"):
            w.update(0.1)


def test_one_body_angular_velocity_is_kyu_sims(root, tool, tmp_path):
    path = os.path.join(root, "samples", "scenes", "pile.json")
    subprocess.run([tool("kyu-sim"), path, "--steps", "60", "--every", "60", "--format", "csv", "--out",
                    str(tmp_path), "--quiet"], check=True)
    rows = [line.split(",") for line in (tmp_path / "frames.csv").read_text().splitlines()[1:]]
    last = {int(r[2]): [np.float32(float(x)) for x in r[11:14]] for r in rows if r[0] == "60"}
    with kyu.World.from_scene(path) as w:
        w.step(60)
        spinning = 0
        for h in w.bodies():
            got = w.angular_velocity(h.item())
            assert list(got) == last[int(h["index1"])]
            spinning += any(got)
        assert spinning > 100  # the pile's collisions set them turning: the check can fail
