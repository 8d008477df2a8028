# SPDX-License-Identifier: MIT
"""What granular (DEM) work does from Python: an Inserter's draws against their distribution, its
bodies never overlapping, the same seed the same bodies; each body's force, the contact network and
a box's stress as numpy arrays against hand computations; scene inserters and networks stepped as
kyu-sim steps them (same state hash, same bytes), and resumed from a snapshot."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import kyu

BOX = {"shape": "box", "center": (0, 1, 0), "half_extents": (0.5, 0.3, 0.5)}


def test_lognormal_draws_have_the_asked_moments():
    with kyu.World() as w:
        ins = kyu.Inserter(w, region=BOX, count=1, seed=2,
                           radius={"distribution": "lognormal", "median": 0.02, "sigma": 0.25, "min": 0.002, "max": 0.2})
        r = ins.sample_radii(20000).astype(np.float64)
        mean, var = 0.02 * math.exp(0.25 ** 2 / 2), (math.exp(0.25 ** 2) - 1) * 0.02 ** 2 * math.exp(0.25 ** 2)
        assert abs(r.mean() - mean) < 5 * math.sqrt(var / len(r))
        assert abs(np.log(r).std() - 0.25) < 0.01
        assert np.array_equal(ins.sample_radii(10, first=5), r[5:15].astype(np.float32))


def no_overlap(w, floor):
    """No two bodies overlap and none reaches below the floor."""
    p, r = w.positions().astype(np.float64), w.radii().astype(np.float64)
    d = np.linalg.norm(p[:, None] - p[None], axis=2) - (r[:, None] + r[None])
    np.fill_diagonal(d, 1)
    return d.min() >= 0 and (p[:, 1] - r).min() >= floor


def test_inserter_fills_without_overlap_and_repeats_with_its_seed():
    hashes = []
    for seed in (4, 4, 5):
        with kyu.World() as w:
            w.add_collider("plane", position=(0, 0.75, 0))  # cuts the region: bodies stay above it
            ins = kyu.Inserter(w, region=BOX, seed=seed, count=400, density=1000,
                               radius={"distribution": "mixture", "radii": [0.02, 0.04], "weights": [1, 1], "by": "mass"})
            assert ins.run(0) == 400 and ins.stats["inserted"] == 400 and ins.stats["requested"] == 400
            assert no_overlap(w, 0.75)
            hashes.append(w.state_hash())
    assert hashes[0] == hashes[1] != hashes[2]


def test_bad_inserter_settings_raise_with_kyus_message():
    with kyu.World() as w:
        with pytest.raises(kyu.InvalidArgumentError, match="no end"):
            kyu.Inserter(w, region=BOX)
        with pytest.raises(kyu.InvalidArgumentError, match="unknown key 'radius'"):
            kyu.Inserter(w, region=dict(BOX, radius=1), count=1)
        with pytest.raises(kyu.InvalidArgumentError, match="size.sigma"):
            kyu.Inserter(w, region=BOX, count=1, radius={"distribution": "normal", "mean": 0.1, "sigma": -1,
                                                          "min": 0.05, "max": 0.2})
        with pytest.raises(kyu.InvalidArgumentError, match="missing key 'max'"):
            kyu.Inserter(w, region=BOX, count=1, radius={"distribution": "uniform", "min": 0.05})


def column(w, n, r=0.1, m=0.2):
    w.add_collider("plane")
    ids = w.add_bodies([(0, r + 2 * r * i, 0) for i in range(n)], radius=r, mass=m)
    w.step(90)
    return ids


def test_forces_network_and_stress_of_a_column():
    n, r, m, g = 5, 0.1, 0.2, 9.81
    with kyu.World() as w:
        ids = column(w, n, r, m)
        f = w.body_forces()
        assert np.allclose(f.force[:, 1], m * g, rtol=0.01) and np.array_equal(f.coordination, [1, 2, 2, 2, 1])
        assert np.array_equal(w.body_forces(ids[[4, 0]]).wall_contacts, [0, 1])
        net = w.contact_network()
        assert len(net) == n
        floor = net.collider["index1"] > 0
        assert np.isclose(net.normal_force[floor].sum(), n * m * g, rtol=0.01)
        pairs = np.sort(net.normal_force[~floor])
        assert np.allclose(pairs, m * g * np.arange(1, n), rtol=0.01)
        box = w.measure_box((-r, 0, -r), (r, 2 * r * n, r))
        moment = (m * g * w.positions()[:, 1]).sum()
        assert box.bodies == n and np.isclose(box.stress[1, 1] * box.volume, -moment, rtol=0.01)
        assert box.stress.shape == (3, 3) and np.isclose(box.pressure, -np.trace(box.stress) / 3)


def reads_mesh_files() -> bool:
    """Whether the extension was built with assimp (a mesh collider's "file")."""
    try:
        kyu.World.from_scene_text('{"colliders": [{"type": "mesh", "file": "none.stl"}]}').close()
    except kyu.SceneError as e:
        return "no mesh reader" not in str(e)
    return True


def test_scene_inserter_steps_as_kyu_sim_and_writes_its_network(root, tool, tmp_path):
    if not reads_mesh_files():
        pytest.skip("the extension was built without assimp (apt-get install -y libassimp-dev)")
    scene = os.path.join(root, "samples", "scenes", "hopper.json")
    subprocess.run([tool("kyu-sim"), scene, "--steps", "150", "--every", "150", "--format", "contacts", "--out",
                    str(tmp_path / "sim"), "--quiet", "--save-snapshot", f"90:{tmp_path / 'snap.kys'}"], check=True)
    summary = json.loads((tmp_path / "sim" / "summary.json").read_text())
    with kyu.World.from_scene(scene) as w:
        w.step(90)
        saved = w.inserters()
        w.step(60)
        assert f"{w.state_hash():016x}" == summary["state_hash"]
        assert w.inserters()[0]["inserted"] == summary["inserters"][0]["inserted"]
        w.write_contacts_vtk(tmp_path / "net.vtp")
    assert (tmp_path / "net.vtp").read_bytes() == (tmp_path / "sim" / "contacts" / "contacts_000150.vtp").read_bytes()
    with kyu.World.from_scene(scene) as w:  # resumed at step 90, with the inserters' counters
        with pytest.raises(kyu.InvalidArgumentError, match="inserters"):
            w.load(tmp_path / "snap.kys", step=90)
        w.load(tmp_path / "snap.kys", step=90, inserters=saved)
        w.step(60)
        assert f"{w.state_hash():016x}" == summary["state_hash"]
