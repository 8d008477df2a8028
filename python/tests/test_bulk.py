# SPDX-License-Identifier: MIT
"""Bulk state as numpy arrays: the arrays hold what the one-body getters give, in slot order or
in the order asked; setters are all or nothing; a buffer given as `out` is filled, not replaced."""
import numpy as np
import pytest

import kyu


def pile(w: kyu.World, n: int = 200) -> np.ndarray:
    w.add_collider("plane")
    rng = np.random.default_rng(5)
    pos = np.column_stack([rng.uniform(-2, 2, n), 0.25 + 0.6 * np.arange(n) / 10, rng.uniform(-2, 2, n)])
    return w.add_bodies(pos, rng.normal(size=(n, 3)), radius=rng.uniform(0.1, 0.25, n), restitution=0.3)


def test_arrays_equal_the_one_body_getters_in_slot_order():
    with kyu.World() as w:
        ids = pile(w)
        for i in range(0, 200, 7):
            w.remove_body(ids[i])
        w.step(40)
        live = w.bodies()
        assert len(live) == len(w) == 171
        p, v, r, m = w.positions(), w.velocities(), w.radii(), w.masses()
        assert p.dtype == np.float32 and p.shape == (171, 3) and p.flags.c_contiguous
        for k, h in enumerate(live):
            h = kyu.BodyId(*h.item())
            assert tuple(p[k].tolist()) == w.position(h)
            assert tuple(v[k].tolist()) == w.velocity(h)
            assert r[k] == np.float32(w.radius(h)) and m[k] == np.float32(w.mass(h))
        assert np.array_equal(w.awake(), [w.is_awake(kyu.BodyId(*h.item())) for h in live])


def test_lists_follow_their_order_and_rows_map_back():
    with kyu.World() as w:
        ids = pile(w)
        w.step(10)
        pick = ids[[150, 3, 150, 77]]
        p = w.positions(pick)
        assert np.array_equal(p, w.positions()[[150, 3, 150, 77]])
        assert np.array_equal(w.velocities(pick), w.velocities()[[150, 3, 150, 77]])
        assert np.array_equal(w.radii(pick), w.radii()[[150, 3, 150, 77]])
        w.remove_body(ids[10])
        assert w.rows(ids[[150, 3]]).tolist() == [149, 3]
        with pytest.raises(kyu.StaleHandleError, match=r"ids\[1\]"):
            w.rows(ids[[11, 10]])
        assert w.positions([kyu.BodyId(*ids[3].item())]).shape == (1, 3)


def test_out_buffer_is_filled_in_place_and_checked():
    with kyu.World() as w:
        pile(w, 50)
        buf = np.zeros((50, 3), np.float32)
        got = w.positions(out=buf)
        assert got is buf and np.array_equal(buf, w.positions())
        with pytest.raises(kyu.InvalidArgumentError, match="float32"):
            w.positions(out=np.zeros((50, 3), np.float64))
        with pytest.raises(kyu.InvalidArgumentError, match="shape"):
            w.velocities(out=np.zeros((49, 3), np.float32))
        with pytest.raises(kyu.InvalidArgumentError, match="C-contiguous"):
            w.positions(out=np.zeros((3, 50), np.float32).T)


def test_setters_are_all_or_nothing():
    with kyu.World(sleep_time=0.1) as w:
        ids = pile(w, 50)
        w.remove_body(ids[20])
        w.step(5)
        before = w.state_hash()
        values = np.ones((3, 3), np.float32)
        with pytest.raises(kyu.StaleHandleError, match=r"ids\[1\]"):
            w.set_positions(values, ids[[0, 20, 1]])
        values[2, 1] = np.nan
        with pytest.raises(kyu.InvalidArgumentError, match=r"xyz\[7\]"):
            w.set_velocities(values, ids[[0, 2, 1]])
        with pytest.raises(kyu.InvalidArgumentError, match="shape"):
            w.set_positions(np.ones((48, 3)))
        assert w.state_hash() == before


def test_bulk_setters_step_like_the_one_body_setters():
    with kyu.World() as a, kyu.World() as b:
        ia, ib = pile(a), pile(b)
        a.step(20)
        b.step(20)
        rng = np.random.default_rng(9)
        new_v = rng.normal(size=(200, 3)).astype(np.float32)
        new_p = a.positions() + np.float32(0.01)
        for k in range(200):
            a.set_position(kyu.BodyId(*ia[k].item()), new_p[k])
            a.set_velocity(kyu.BodyId(*ia[k].item()), new_v[k])
        b.set_positions(new_p)  # every body, slot order
        b.set_velocities(new_v, ib)
        assert a.state_hash() == b.state_hash()
        a.step(30)
        b.step(30)
        assert a.state_hash() == b.state_hash()
        assert np.array_equal(a.positions(), b.positions())


def test_events_come_as_parallel_arrays():
    with kyu.World(enable_impact_events=True) as w:
        pile(w, 100)
        n_begin = n_impact = 0
        for _ in range(90):
            w.step()
            ev, im = w.begin_events(), w.impact_events()
            assert ev.body.dtype == kyu.BODY_ID and ev.collider.dtype == kyu.COLLIDER_ID
            assert im.point.shape == (len(im), 3) and im.normal.shape == (len(im), 3)
            if len(im):
                assert np.allclose(np.linalg.norm(im.normal, axis=1), 1, atol=1e-5)
                assert np.all(im.approach_speed > w.settings()["restitution_threshold"])
                assert np.all((im.time >= 0) & (im.time <= 1))
            n_begin += len(ev)
            n_impact += len(im)
        assert n_begin > 50 and n_impact > 50
