# SPDX-License-Identifier: MIT
"""Frame files written from Python: VTK read back with VTK's own reader (python3-vtk9), extended
XYZ with a strict reader of OVITO's grammar, compared with the arrays in memory; and the files are
byte for byte those kyu-sim writes for the same scene and step."""
import os
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import kyu
import ovito_xyz

vtk = pytest.importorskip("vtk")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402


def falling(w: kyu.World) -> np.ndarray:
    w.add_collider("plane")
    ids = w.add_bodies([(i % 5, 1 + i // 5, 0.1 * i) for i in range(23)], [(0.1 * i, 0, -1) for i in range(23)],
                       radius=np.linspace(0.1, 0.3, 23))
    w.step(17)
    return ids


def read_vtp(path):
    reader = vtk.vtkXMLPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    assert reader.GetErrorCode() == 0
    return reader.GetOutput()


def test_vtk_file_holds_the_bodies(tmp_path):
    with kyu.World() as w:
        ids = falling(w)
        w.remove_body(ids[4])
        w.write_vtk(tmp_path / "f.vtp")
        poly = read_vtp(tmp_path / "f.vtp")
        pd = poly.GetPointData()
        assert poly.GetNumberOfPoints() == 22 and poly.GetNumberOfVerts() == 22
        assert np.array_equal(vtk_to_numpy(poly.GetPoints().GetData()), w.positions())
        assert np.array_equal(vtk_to_numpy(pd.GetArray("radius")), w.radii())
        assert np.array_equal(vtk_to_numpy(pd.GetArray("velocity")), w.velocities())
        assert np.array_equal(vtk_to_numpy(pd.GetArray("id")), w.bodies()["index1"])
        assert vtk_to_numpy(poly.GetFieldData().GetArray("TimeValue"))[0] == w.time
        some = ids[[9, 2]]
        w.write_vtk(tmp_path / "some.vtp", ids=some)
        part = read_vtp(tmp_path / "some.vtp")
        assert np.array_equal(vtk_to_numpy(part.GetPoints().GetData()), w.positions(some))
        with pytest.raises(kyu.StaleHandleError):
            w.write_vtk(tmp_path / "stale.vtp", ids=ids[[4]])


def test_vtk_series_lists_its_frames_with_their_times(tmp_path):
    with kyu.World() as w:
        falling(w)
        with kyu.VtkSeries(tmp_path / "run.pvd") as series:
            for _ in range(3):
                series.add(w)
                w.step(5)
            series.add(w)
            series.add(w)  # the same step again: replaced, not repeated
        sets = ET.parse(tmp_path / "run.pvd").getroot().find("Collection").findall("DataSet")
        assert [s.get("file") for s in sets] == [f"run/frame_{k:06d}.vtp" for k in (17, 22, 27, 32)]
        assert [float(s.get("timestep")) for s in sets] == pytest.approx([k / 60 for k in (17, 22, 27, 32)], abs=1e-6)
        last = read_vtp(tmp_path / sets[-1].get("file"))
        assert np.array_equal(vtk_to_numpy(last.GetPoints().GetData()), w.positions())


def test_xyz_frames_follow_ovitos_grammar(tmp_path):
    with kyu.World() as w:
        ids = falling(w)
        path = tmp_path / "t.xyz"
        w.write_xyz(path)  # the box of the bodies, as kyu-sim writes it
        lo = np.min(w.positions() - w.radii()[:, None], axis=0)
        hi = np.max(w.positions() + w.radii()[:, None], axis=0)
        w.step(3)
        w.write_xyz(path, append=True, box=((-1, 0, -2), (5, 6, 3.5)))
        w.write_xyz(path, append=True, box=None)
        frames = ovito_xyz.read(path)
        assert len(frames) == 3
        first, second, third = frames
        assert first["info"]["Step"] == "17" and "Lattice" not in third["info"]
        nine = lambda x: float("%.9g" % x)  # noqa: E731 (kyu writes 9 digits)
        assert first["info"]["Lattice"] == list(np.diag([nine(float(h) - float(l)) for l, h in zip(lo, hi)]).ravel())
        assert first["info"]["Origin"] == [nine(float(x)) for x in lo] and first["info"]["pbc"] == [False] * 3
        assert second["info"]["Lattice"] == [6, 0, 0, 0, 6, 0, 0, 0, 5.5]
        assert second["info"]["Origin"] == [-1, 0, -2] and second["info"]["pbc"] == [False] * 3
        cols = second["columns"]
        assert float(second["info"]["Time"]) == w.time
        assert np.array_equal(cols["pos"].astype(np.float32), w.positions())
        assert np.array_equal(cols["velo"].astype(np.float32), w.velocities())
        assert np.array_equal(cols["radius"].astype(np.float32), w.radii())
        assert np.array_equal(cols["id"], ids["index1"])
        assert set(cols["species"]) == {"B"}


def test_xyz_frames_of_a_periodic_world_carry_its_box(tmp_path):
    box = {"x": True, "z": True, "lower": (-2, 0, -1), "upper": (2, 5, 1)}
    with kyu.World(gravity=(0, 0, 0), periodic=box) as w:
        w.add_body(position=(1.95, 1, 0), velocity=(3, 0, 0), radius=0.1)
        w.add_body(position=(0, 3, 0.5), radius=0.1)
        w.step(2)
        path = tmp_path / "p.xyz"
        w.write_xyz(path)
        w.write_xyz(path, append=True, box=((-5, -5, -5), (5, 5, 5)))
        first, second = ovito_xyz.read(path)
        # x and z: the periodic box, marked periodic; y: the bodies' span, as in any world
        assert first["info"]["pbc"] == [True, False, True]
        assert first["info"]["Origin"] == pytest.approx([-2, 0.9, -1], abs=1e-6)
        assert first["info"]["Lattice"] == pytest.approx([4, 0, 0, 0, 2.2, 0, 0, 0, 2], abs=1e-6)
        assert second["info"]["pbc"] == [True, False, True] and second["info"]["Origin"] == [-5, -5, -5]
        assert (first["columns"]["pos"][:, 0] < 2).all()  # wrapped: 1.95 + 0.1 crossed the face


def test_python_writes_the_same_bytes_as_kyu_sim(root, tool, tmp_path):
    scene = os.path.join(root, "samples", "scenes", "pour-bowl.json")
    subprocess.run([tool("kyu-sim"), scene, "--steps", "90", "--every", "90", "--format", "vtk,xyz", "--out",
                    str(tmp_path / "sim"), "--quiet"], check=True)
    with kyu.World.from_scene(scene) as w:
        w.step(90)
        w.write_vtk(tmp_path / "py.vtp")
        w.write_xyz(tmp_path / "py.xyz")
    sim_vtp = (tmp_path / "sim" / "frames" / "frame_000090.vtp").read_bytes()
    assert (tmp_path / "py.vtp").read_bytes() == sim_vtp
    sim_frames = (tmp_path / "sim" / "frames.xyz").read_text()
    py_frame = (tmp_path / "py.xyz").read_text()
    assert py_frame.count("Properties=") == 1 and sim_frames.endswith(py_frame)  # kyu-sim's last frame
    assert len(ovito_xyz.read(tmp_path / "py.xyz")[0]["columns"]["id"]) > 50


def test_unwritable_path_raises_an_os_error(tmp_path):
    with kyu.World() as w:
        w.add_body(position=(0, 0, 0))
        with pytest.raises(OSError, match="missing/f.vtp: cannot write: No such file or directory"):
            w.write_vtk(tmp_path / "missing" / "f.vtp")
        with pytest.raises(kyu.KyuIOError):
            w.write_xyz(tmp_path / "missing" / "f.xyz")
