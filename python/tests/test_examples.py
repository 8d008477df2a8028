# SPDX-License-Identifier: MIT
"""The examples run (small sizes) and their numbers are physics: rebounds at e^2 of the height
before, a gas pressure between the ideal gas and Carnahan-Starling's hard spheres, a poured bed
whose profile adds up to the spheres' volume; and the README's Python example is the file run here."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import bounce_heights
import gas_pressure
import pour_packing


def test_bounce_heights_fall_by_e_squared(tmp_path, capsys):
    png = tmp_path / "bounce.png"
    result = bounce_heights.main(["--seconds", "5", "--out", str(png)])
    for e, top in result["tops"].items():
        assert top[0] == pytest.approx(2.0, abs=1e-3)  # dropped from 2 m above rest
        r = bounce_heights.ratios(top)[:3]
        assert len(r) == 3, f"e={e}: fewer than 3 rebounds"
        assert r == pytest.approx([e * e] * 3, rel=2e-3), f"e={e}: ratios {r}"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000
    assert "0.7225" in capsys.readouterr().out


def test_gas_pressure_lies_between_the_ideal_gas_and_carnahan_starling():
    r = gas_pressure.run(n=500, fraction=0.2, settle=150, measure=450)
    assert r["kT"] == pytest.approx(1 / 3, rel=0.01)  # speed 1, drift removed: energy kept
    assert r["P_ideal"] * 1.5 < r["pressure"]  # hard spheres push much harder than points
    # A small box: the walls gather spheres, so the middle is thinner than N / V. The pressure is
    # the bulk's, between Carnahan-Starling at the middle's density and at N / V.
    assert r["core_fraction"] < 0.2
    assert 0.97 * r["P_carnahan_starling_core"] < r["pressure"] < r["P_carnahan_starling"]


def test_poured_bed_is_a_random_packing_and_adds_up(capsys):
    r = pour_packing.run(n=500, seconds=4.0)
    assert r["asleep"] == 500  # it settled
    f = np.asarray(r["fraction"])
    assert f.max() < 0.7405  # nothing beats the densest packing of spheres
    assert 0.45 < r["middle"] < 0.64, f"middle of the bed {r['middle']}"
    assert f[-1] < 0.05  # the top slab is nearly empty
    # Every sphere lies inside the box above the floor: the slabs hold all of their volume.
    assert np.sum(f) * 0.8 * 0.8 * 0.05 == pytest.approx(r["solid"], rel=1e-6)


def test_readme_python_example_is_the_file_and_runs(root):
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read()
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block, "README.md has no ```python block"
    path = os.path.join(root, "python", "examples", "readme.py")
    with open(path) as f:
        assert block.group(1) == f.read(), "the README's example differs from python/examples/readme.py"
    assert len(block.group(1).strip().splitlines()) <= 10
    out = subprocess.run([sys.executable, path], check=True, capture_output=True, text=True).stdout.splitlines()
    assert len(out) == 4 and out[-1] == "t=4 s  ball 0.250 m  mean 0.250 m  asleep 100"


def test_bench_gas_example_prints_the_hash():
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(gas_pressure.__file__), "bench_gas.py"),
                          "300", "--steps", "10"], check=True, capture_output=True, text=True).stdout
    assert re.search(r"n=300 .* state_hash=0x[0-9a-f]{16}$", out.strip())


def test_hopper_discharges_at_a_steady_rate_near_beverloo():
    import hopper_discharge

    r = hopper_discharge.run(kg=8.0)
    assert abs(r["mass"] - 8.0) < 0.05  # the mass rate's fill, within a bead
    assert r["drained"] > 0.95
    # A steady flow: the mass out grows in a straight line through the middle of the discharge.
    t, m = r["times"], r["left"]
    flow = (m > 0.2 * r["mass"]) & (m < 0.7 * r["mass"])
    fit = np.polyfit(t[flow], m[flow], 1)
    assert np.abs(np.polyval(fit, t[flow]) - m[flow]).max() < 0.05 * r["mass"]
    assert 0.7 * r["beverloo"] < r["rate"] < 3 * r["beverloo"]


def test_force_chains_carry_the_weight(tmp_path):
    import force_chains

    r = force_chains.main(["--n", "600", "--vtk", str(tmp_path), "--png", str(tmp_path / "chains.png")])
    assert r["asleep"] == 600
    assert r["floor"] == pytest.approx(r["weight"], rel=0.01)  # frictionless walls hold none of it
    assert r["stress_yy_volume"] == pytest.approx(-r["weight_moment"], rel=0.01)
    assert 0.25 < r["strong_share"] < 0.45 and r["strong_load"] > 0.6  # a strong network of chains
    assert (tmp_path / "contacts.vtp").stat().st_size > 1000 and (tmp_path / "chains.png").stat().st_size > 10000
