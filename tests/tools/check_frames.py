# SPDX-License-Identifier: MIT
"""Reads kyu-sim's VTK or XYZ frames back with other people's readers and compares them with the
CSV frames of the same run (which kyu-sim writes with the same 9 digits: every float must come back
to the same bits).

    check_frames.py vtk DIR       # DIR/frames.pvd and the .vtp files it lists, with VTK's XML reader
    check_frames.py xyz DIR       # DIR/frames.xyz, with the strict reader of OVITO's grammar
    check_frames.py contacts DIR  # DIR/contacts.pvd (the contact network) with VTK's reader: each line
                                  # joins its bodies' centres in the CSV frame, and in the last frame
                                  # the colliders hold the bodies' weight (density 2500)

Prints one line of what was compared; exits 1 with the first difference.
"""
import csv
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ovito_xyz  # noqa: E402


def csv_frames(out):
    """step -> dict of float32 arrays (t, id, pos, vel, r), rows in file order. The frames are the
    lines of series.csv: a frame without bodies has no rows in frames.csv."""
    frames = {}
    with open(os.path.join(out, "series.csv"), newline="") as f:
        times = {int(row["step"]): float(row["t"]) for row in csv.DictReader(f)}
    with open(os.path.join(out, "frames.csv"), newline="") as f:
        for row in csv.DictReader(f):
            frames.setdefault(int(row["step"]), []).append(row)
    out = {}
    for step, t in times.items():
        rows = frames.get(step, [])
        out[step] = {
            "t": t,
            "id": np.array([int(r["id"]) for r in rows], dtype=np.int64),
            "pos": np.array([[float(r[k]) for k in "xyz"] for r in rows], dtype=np.float32).reshape(-1, 3),
            "vel": np.array([[float(r[k]) for k in ("vx", "vy", "vz")] for r in rows], dtype=np.float32).reshape(-1, 3),
            "r": np.array([float(r["r"]) for r in rows], dtype=np.float32),
            "omega": np.array([[float(r[k]) for k in ("wx", "wy", "wz")] for r in rows], dtype=np.float32).reshape(-1, 3),
            "q": np.array([[float(r[k]) for k in ("qx", "qy", "qz", "qw")] for r in rows], dtype=np.float32).reshape(-1, 4),
        }
    return out


def same(what, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        raise AssertionError(f"{what}: read {got.ravel()[:6]}... (shape {got.shape}), "
                             f"kyu wrote {want.ravel()[:6]}... (shape {want.shape})")


def check_box(step, info, want):
    """The cell is the box of the frame's spheres (centre -/+ radius, in float32 as kyu computes it),
    not periodic; a frame without bodies has none."""
    if len(want["id"]) == 0:
        if "Lattice" in info:
            raise AssertionError(f"step {step}: a frame without bodies has a Lattice")
        return
    for key in ("Lattice", "Origin", "pbc"):
        if key not in info:
            raise AssertionError(f"step {step}: no {key} (OVITO reads the box from it)")
    lo = np.min(want["pos"] - want["r"][:, None], axis=0)
    hi = np.max(want["pos"] + want["r"][:, None], axis=0)
    nine = lambda x: float("%.9g" % x)  # noqa: E731 (kyu writes 9 digits)
    cell = np.diag([nine(float(h) - float(l)) for l, h in zip(lo, hi)])
    same(f"step {step}: Lattice", np.array(info["Lattice"]).reshape(3, 3), cell)
    same(f"step {step}: Origin", info["Origin"], [nine(float(x)) for x in lo])
    same(f"step {step}: pbc", info["pbc"], [False, False, False])


def check_xyz(out, ref):
    frames = ovito_xyz.read(os.path.join(out, "frames.xyz"))
    steps = sorted(ref)
    if len(frames) != len(steps):
        raise AssertionError(f"{len(frames)} XYZ frames, {len(steps)} CSV frames")
    rows = 0
    for fr, step in zip(frames, steps):
        want, cols, info = ref[step], fr["columns"], fr["info"]
        same(f"step {step}: Step", int(info["Step"]), step)
        same(f"step {step}: Time", float(info["Time"]), want["t"])
        same(f"step {step}: id", cols["id"], want["id"])
        same(f"step {step}: pos", cols["pos"].astype(np.float32), want["pos"])
        same(f"step {step}: velo", cols["velo"].astype(np.float32), want["vel"])
        same(f"step {step}: radius", cols["radius"].astype(np.float32), want["r"])
        same(f"step {step}: omega", cols["omega"].astype(np.float32), want["omega"])
        same(f"step {step}: orientation", cols["orientation"].astype(np.float32), want["q"])
        if len(cols["n_neighb"]) != len(want["id"]) or cols["force"].shape != (len(want["id"]), 3):
            raise AssertionError(f"step {step}: force or n_neighb missing")
        check_box(step, info, want)
        rows += len(want["id"])
    return f"{len(frames)} frames, {rows} rows equal to the CSV's, each frame's Lattice the bodies' box"


def check_vtk(out, ref):
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    sets = ET.parse(os.path.join(out, "frames.pvd")).getroot().find("Collection").findall("DataSet")
    steps = sorted(ref)
    if len(sets) != len(steps):
        raise AssertionError(f"{len(sets)} data sets in frames.pvd, {len(steps)} CSV frames")
    rows = 0
    for ds, step in zip(sets, steps):
        want = ref[step]
        same(f"step {step}: pvd timestep", float(ds.get("timestep")), want["t"])
        reader = vtk.vtkXMLPolyDataReader()
        reader.SetFileName(os.path.join(out, ds.get("file")))
        reader.Update()
        if reader.GetErrorCode() != 0:
            raise AssertionError(f"VTK could not read {ds.get('file')}")
        poly = reader.GetOutput()
        n = len(want["id"])
        same(f"step {step}: points", poly.GetNumberOfPoints(), n)
        same(f"step {step}: vertex cells", poly.GetNumberOfVerts(), n)
        pd = poly.GetPointData()
        if n > 0:
            same(f"step {step}: Points", vtk_to_numpy(poly.GetPoints().GetData()), want["pos"])
            same(f"step {step}: radius", vtk_to_numpy(pd.GetArray("radius")), want["r"])
            same(f"step {step}: velocity", vtk_to_numpy(pd.GetArray("velocity")), want["vel"])
            same(f"step {step}: id", vtk_to_numpy(pd.GetArray("id")), want["id"])
            same(f"step {step}: angular_velocity", vtk_to_numpy(pd.GetArray("angular_velocity")), want["omega"])
            same(f"step {step}: orientation", vtk_to_numpy(pd.GetArray("orientation")), want["q"])
            for name, width in (("force", 3), ("torque", 3), ("coordination", 1)):
                a = pd.GetArray(name)
                if a is None or a.GetNumberOfTuples() != n or a.GetNumberOfComponents() != width:
                    raise AssertionError(f"step {step}: no point data {name} of {width} per point")
        same(f"step {step}: TimeValue", vtk_to_numpy(poly.GetFieldData().GetArray("TimeValue"))[0], want["t"])
        rows += n
    return f"{len(sets)} frames, {rows} points equal to the CSV's"


def check_contacts(out, ref):
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    sets = ET.parse(os.path.join(out, "contacts.pvd")).getroot().find("Collection").findall("DataSet")
    steps = sorted(ref)
    if len(sets) != len(steps):
        raise AssertionError(f"{len(sets)} data sets in contacts.pvd, {len(steps)} CSV frames")
    lines = 0
    for ds, step in zip(sets, steps):
        want = ref[step]
        reader = vtk.vtkXMLPolyDataReader()
        reader.SetFileName(os.path.join(out, ds.get("file")))
        reader.Update()
        if reader.GetErrorCode() != 0:
            raise AssertionError(f"VTK could not read {ds.get('file')}")
        poly, n = reader.GetOutput(), 0
        n = poly.GetNumberOfLines()
        same(f"step {step}: points", poly.GetNumberOfPoints(), 2 * n)
        if n == 0:
            continue
        cd = poly.GetCellData()
        pts = vtk_to_numpy(poly.GetPoints().GetData()).reshape(n, 2, 3)
        a, b, col = (vtk_to_numpy(cd.GetArray(k)) for k in ("body_a", "body_b", "collider"))
        row = {int(i): k for k, i in enumerate(want["id"])}
        same(f"step {step}: A ends", pts[:, 0], want["pos"][[row[int(i)] for i in a]])
        bodies = b > 0
        same(f"step {step}: B ends", pts[bodies, 1], want["pos"][[row[int(i)] for i in b[bodies]]])
        same(f"step {step}: a body or a collider", (b > 0) != (col > 0), np.ones(n, bool))
        fn = vtk_to_numpy(cd.GetArray("normal_force"))
        if not (fn >= 0).all():
            raise AssertionError(f"step {step}: a negative normal force")
        lines += n
        if step == steps[-1]:  # at rest: the colliders' contacts carry the bodies' weight
            weight = float((2500 * 4 / 3 * np.pi * want["r"].astype(np.float64) ** 3 * 9.81).sum())
            held = float(vtk_to_numpy(cd.GetArray("force"))[col > 0, 1].sum())
            if abs(held - weight) > 0.01 * weight:
                raise AssertionError(f"step {step}: the colliders hold {held} N of the weight {weight} N")
    return f"{len(sets)} networks, {lines} lines between the CSV's centres; at rest the walls hold the weight"


def main():
    kind, out = sys.argv[1], sys.argv[2]
    ref = csv_frames(out)
    try:
        check = {"vtk": check_vtk, "xyz": check_xyz, "contacts": check_contacts}[kind]
        print(check(out, ref))
    except (AssertionError, ovito_xyz.XyzError) as e:
        print(e)
        sys.exit(1)


if __name__ == "__main__":
    main()
