# SPDX-License-Identifier: MIT
"""The World API: settings, bodies, colliders of every shape, stepping, errors as exceptions,
events, queries and snapshots, each checked against numbers worked out by hand."""
import math

import numpy as np
import pytest

import kyu

G = 9.81


def test_free_fall_follows_the_parabola():
    with kyu.World(gravity=(0, -G, 0)) as w:
        h = w.add_body(position=(0, 10, 0), velocity=(1, 0, 0))
        w.step(30)
        t = 30 * w.fixed_dt
        x, y, z = w.position(h)
        assert x == pytest.approx(t, abs=1e-5)
        assert y == pytest.approx(10 - 0.5 * np.float32(G) * t * t, abs=1e-4)
        assert w.velocity(h)[1] == pytest.approx(-np.float32(G) * t, abs=1e-4)
        assert w.step_index == 30 and w.time == pytest.approx(0.5, abs=1e-6)


def test_a_periodic_box_wraps_bodies_and_pairs_across_it():
    box = {"x": True, "y": True, "z": True, "lower": (0, 0, 0), "upper": (4, 4, 4)}
    with kyu.World(gravity=(0, 0, 0), periodic=box) as w:
        assert w.settings()["periodic"] == {"x": True, "y": True, "z": True, "lower": (0.0, 0.0, 0.0),
                                            "upper": (4.0, 4.0, 4.0)}
        # two balls 0.2 m apart through the face x = 0 = 4, closing at 2 m/s: they swap at 0.1 s
        a = w.add_body(position=(3.8, 2, 2), velocity=(1, 0, 0), radius=0.1, restitution=1, friction=0)
        b = w.add_body(position=(0.2, 2, 2), velocity=(-1, 0, 0), radius=0.1, restitution=1, friction=0)
        w.step(30)
        assert w.velocity(a)[0] == pytest.approx(-1, abs=1e-6)
        assert w.velocity(b)[0] == pytest.approx(1, abs=1e-6)
        assert w.position(a)[0] == pytest.approx(3.5, abs=1e-5)
        assert w.position(b)[0] == pytest.approx(0.5, abs=1e-5)
        assert ((w.positions() >= 0) & (w.positions() < 4)).all()


def test_a_bad_periodic_box_is_refused_naming_the_field():
    with pytest.raises(kyu.KyuError, match="periodic.upper.x = -1"):
        kyu.World(periodic={"x": True, "lower": (0, 0, 0), "upper": (-1, 4, 4)})
    with pytest.raises(kyu.KyuError, match="unknown keys"):
        kyu.World(periodic={"w": True, "lower": (0, 0, 0), "upper": (1, 4, 4)})


def test_defaults_and_settings_are_kyus():
    with kyu.World(fixed_dt=0.01, workers=2, enable_impact_events=True) as w:
        s = w.settings()
        assert s["fixed_dt"] == pytest.approx(0.01) and s["worker_count"] == 2
        assert s["enable_impact_events"] is True and s["enable_sleep"] is True
        assert w.gravity == pytest.approx((0, -G, 0))
        h = w.add_body(position=(0, 0, 0))
        assert w.radius(h) == 0.5 and w.mass(h) == 1.0
        w.gravity = (0, 0, -1)
        assert w.gravity == (0.0, 0.0, -1.0)


@pytest.mark.parametrize("kind,kwargs,rest_y", [
    ("plane", {}, 0.25),
    ("box", {"position": (0, 0.5, 0), "half_extents": (1, 0.5, 1)}, 1.25),
    ("capsule", {"position": (0, 0.5, 0), "a": (-1, 0, 0), "b": (1, 0, 0), "radius": 0.3}, 1.05),
    ("hull", {"points": [(x, y, z) for x in (-1, 1) for y in (0, 1) for z in (-1, 1)]}, 1.25),
    ("mesh", {"points": [(-1, 0.5, -1), (1, 0.5, -1), (1, 0.5, 1), (-1, 0.5, 1)],
              "triangles": [(0, 2, 1), (0, 3, 2)]}, 0.75),
    ("box", {"position": (0, 0.5, 0), "half_extents": (1, 0.5, 1),
             "rotation": kyu.quat_from_axis_angle((0, 1, 0), 45)}, 1.25),
])
def test_a_ball_comes_to_rest_on_every_collider_kind(kind, kwargs, rest_y):
    with kyu.World() as w:
        c = w.add_collider(kind, **kwargs)
        assert w.collider_is_valid(c)
        h = w.add_body(position=(0, 3, 0), radius=0.25)
        w.step(180)
        y = w.position(h)[1]
        assert rest_y - 0.003 <= y <= rest_y + 0.001, f"{kind}: rests at {y}"
        assert np.linalg.norm(w.velocity(h)) < 0.05


def test_kinematic_collider_pushes_a_ball():
    with kyu.World(gravity=(0, 0, 0)) as w:
        paddle = w.add_collider("box", motion="kinematic", velocity=(2, 0, 0), position=(-1, 0, 0),
                                half_extents=(0.1, 1, 1))
        h = w.add_body(position=(0, 0, 0), radius=0.25, restitution=0.0)
        w.step(60)
        assert w.position(h)[0] > 0.5 and w.collider_position(paddle)[0] == pytest.approx(1.0, abs=1e-4)
        w.set_collider_velocity(paddle, (0, 0, 0))
        w.set_collider_transform(paddle, (5, 0, 0))
        assert w.collider_position(paddle)[0] == 5.0


def test_collider_arguments_are_checked_like_scene_files():
    with kyu.World() as w:
        with pytest.raises(kyu.InvalidArgumentError, match="a plane collider takes no half_extents"):
            w.add_collider("plane", half_extents=(1, 1, 1))
        with pytest.raises(kyu.InvalidArgumentError, match="kind must be one of"):
            w.add_collider("sphere")
        with pytest.raises(kyu.InvalidArgumentError, match="motion='kinematic'"):
            w.add_collider("box", half_extents=(1, 1, 1), velocity=(1, 0, 0))
        with pytest.raises(kyu.InvalidArgumentError, match="span a volume|hull"):
            w.add_collider("hull", points=[(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])
        with pytest.raises(kyu.InvalidArgumentError):
            w.add_collider("box", half_extents=(1, 0, 1))
        with pytest.raises(kyu.InvalidArgumentError, match=r"points must have shape \(M, 3\)"):
            w.add_collider("mesh", points=[1, 2, 3], triangles=[(0, 1, 2)])


def test_bad_values_raise_with_kyus_message_and_change_nothing():
    with kyu.World() as w:
        w.add_body(position=(0, 1, 0))
        before = w.state_hash()
        with pytest.raises(kyu.InvalidArgumentError, match=r"radius -1 \(allowed"):
            w.add_body(position=(0, 1, 0), radius=-1)
        with pytest.raises(ValueError, match=r"position \(0, nan, 0\) must be finite"):
            w.add_body(position=(0, float("nan"), 0))
        with pytest.raises(kyu.InvalidArgumentError, match="restitution 2"):
            w.add_body(position=(0, 1, 0), restitution=2)
        with pytest.raises(kyu.InvalidArgumentError, match="position must be 3 numbers"):
            w.add_body(position=(0, 1))
        with pytest.raises(kyu.InvalidArgumentError, match="frame_seconds"):
            w.update(-1)
        with pytest.raises(kyu.InvalidArgumentError) as info:
            w.add_body(position=(0, 1, 0), mass=0)
        assert info.value.status == "KYU_ERR_MASS"
        assert w.state_hash() == before and len(w) == 1


def test_bad_world_settings_are_refused():
    with pytest.raises(kyu.InvalidArgumentError, match="fixed_dt=-1"):
        kyu.World(fixed_dt=-1)
    with pytest.raises(kyu.InvalidArgumentError, match="gravity must be 3 numbers"):
        kyu.World(gravity=(0, 1))


def test_stale_and_foreign_handles_raise_lookup_errors():
    with kyu.World() as a, kyu.World() as b:
        ha = a.add_body(position=(0, 1, 0))
        hb = b.add_body(position=(0, 1, 0))
        assert (ha.index1, ha.generation) == (hb.index1, hb.generation) and ha.world != hb.world
        with pytest.raises(kyu.StaleHandleError, match="another world"):
            b.position(ha)
        a.remove_body(ha)
        with pytest.raises(LookupError, match="removed"):
            a.position(ha)
        a.step()  # a removed body's slot is reused once the next step began
        again = a.add_body(position=(0, 2, 0))
        assert again.index1 == ha.index1 and not a.is_valid(ha) and a.is_valid(again)
        with pytest.raises(kyu.StaleHandleError):
            a.set_velocity(ha, (1, 0, 0))


def test_a_closed_world_refuses_use_and_closes_once():
    w = kyu.World()
    with w:
        w.add_body(position=(0, 0, 0))
    with pytest.raises(kyu.KyuError, match="closed"):
        w.step()
    w.close()
    assert "closed" in repr(w)


def test_update_runs_fixed_steps_and_interpolates():
    with kyu.World(gravity=(0, 0, 0)) as w:
        h = w.add_body(position=(0, 0, 0), velocity=(6, 0, 0))
        assert w.update(1 / 60 * 2.5) == 2
        assert w.alpha == pytest.approx(0.5, abs=1e-3)
        x = w.position(h)[0]
        ix = w.interpolated_positions()[0, 0]
        assert x == pytest.approx(0.2, abs=1e-5) and ix == pytest.approx(0.15, abs=1e-4)


def test_add_bodies_is_all_or_none():
    with kyu.World() as w:
        pos = np.array([(i, 1, 0) for i in range(5)], np.float32)
        with pytest.raises(kyu.InvalidArgumentError, match=r"bodies\[3\]: .*radius -0.5"):
            w.add_bodies(pos, radius=[0.1, 0.2, 0.3, -0.5, 0.1])
        assert len(w) == 0
        ids = w.add_bodies(pos, radius=[0.1, 0.2, 0.3, 0.4, 0.1], restitution=0.5)
        assert ids.dtype == kyu.BODY_ID and len(ids) == 5
        assert w.radii().tolist() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.1])
        assert kyu.BodyId(*ids[3].item()) == w.bodies()[3].item()
        with pytest.raises(TypeError, match="colour"):
            w.add_bodies(pos, colour=1)


def test_begin_end_and_impact_events_of_a_landing():
    with kyu.World(enable_impact_events=True) as w:
        ground = w.add_collider("plane")
        h = w.add_body(position=(0, 1.25, 0), radius=0.25)
        seen_begin, speeds = None, []
        for _ in range(60):
            w.step()
            begin, impacts = w.begin_events(), w.impact_events()
            if len(begin) and seen_begin is None:
                seen_begin = begin
            speeds += impacts.approach_speed.tolist()
            if len(impacts):
                assert impacts.collider[0].item() == tuple(ground)
                assert impacts.normal[0] == pytest.approx([0, 1, 0])
        assert seen_begin is not None and seen_begin.body[0].item() == tuple(h)
        assert seen_begin.other["index1"][0] == 0 and seen_begin.collider[0].item() == tuple(ground)
        assert not seen_begin.sensor[0]
        assert speeds[0] == pytest.approx(math.sqrt(2 * G * 1.0), rel=1e-3)  # fell 1 m
        touching = w.contacts(h)
        assert len(touching) == 1 and touching.collider[0].item() == tuple(ground)
        w.remove_body(h)
        w.step()
        assert len(w.end_events()) == 1


def test_queries():
    with kyu.World(gravity=(0, 0, 0)) as w:
        ground = w.add_collider("plane")
        a = w.add_body(position=(0, 2, 0), radius=0.5)
        b = w.add_body(position=(3, 2, 0), radius=0.5, velocity=(-1, 0, 0))
        hit = w.raycast((0, 10, 0), (0, -20, 0))
        assert hit is not None and hit.body == a and hit.collider is None
        assert hit.point == pytest.approx((0, 2.5, 0)) and hit.fraction == pytest.approx(7.5 / 20)
        hits = w.raycast_all((0, 10, 0), (0, -20, 0))
        assert [x.body for x in hits] == [a, None] and hits[1].collider == ground
        assert w.raycast((0, 10, 0), (0, -20, 0), ignore=a).collider == ground
        assert w.raycast((0, 10, 0), (0, -20, 0), skip_colliders=True, ignore=a) is None
        cast = w.sphere_cast((-3, 2, 0), 0.5, (10, 0, 0))
        assert cast.body == a and cast.fraction == pytest.approx(2 / 10)
        assert [kyu.BodyId(*x.item()) for x in w.overlap_sphere((1.5, 2, 0), 1.0)] == [a, b]
        assert len(w.overlap_aabb((2.6, 0, -1), (4, 3, 1))) == 1
        near, dist = w.nearest_body((0, 4, 0))
        assert near == a and dist == pytest.approx(1.5)
        assert w.nearest_body((0, 40, 0), max_distance=1) is None
        d = w.body_distance(b, a)
        assert d.distance == pytest.approx(2.0) and d.normal == pytest.approx((1, 0, 0))
        assert w.body_collider_distance(a, ground).distance == pytest.approx(1.5)
        assert w.time_to_collision(a, b, 10) == pytest.approx(2.0, abs=1e-4)
        assert w.time_to_collision(a, b, 1) is None


def test_snapshots_resume_bit_identically_and_refuse_garbage(tmp_path):
    with kyu.World() as w:
        w.add_collider("plane")
        w.add_bodies([(x * 0.3, 1 + 0.1 * x, 0) for x in range(20)], radius=0.1, restitution=0.4)
        w.step(30)
        data = w.to_bytes()
        path = tmp_path / "w.kys"
        w.save(path)
        w.step(60)
        want = w.state_hash()
        w.load_bytes(data)
        w.step(60)
        assert w.state_hash() == want
        with kyu.World.from_snapshot(path) as other:
            other.step(60)
            assert other.state_hash() == want
        before = w.state_hash()
        with pytest.raises(kyu.SnapshotError):
            w.load_bytes(data[:100])
        with pytest.raises(kyu.KyuIOError):
            w.load(tmp_path / "missing.kys")
        assert w.state_hash() == before


def test_sleep_and_wake():
    with kyu.World(sleep_time=0.2) as w:
        w.add_collider("plane")
        h = w.add_body(position=(0, 0.5, 0))
        w.step(60)
        assert not w.is_awake(h) and w.sleeping_body_count == 1 and not w.awake()[0]
        w.apply_impulse(h, (0, 2, 0))
        assert w.is_awake(h) and w.velocity(h)[1] == pytest.approx(2.0)


def test_stats_momentum_energy():
    with kyu.World(gravity=(0, 0, 0)) as w:
        w.add_body(position=(0, 0, 0), velocity=(1, 0, 0), mass=2)
        w.add_body(position=(5, 0, 0), velocity=(0, 3, 0), mass=1)
        w.step()
        assert w.kinetic_energy() == pytest.approx(0.5 * 2 + 0.5 * 9)
        assert w.momentum().tolist() == pytest.approx([2, 3, 0])
        stats = w.stats()
        assert stats["awake_bodies"] == 2 and stats["ms_total"] >= 0


def test_a_ball_rolls_down_a_slope_at_five_sevenths_g_sin_theta():
    """Spin from Python: a = 5/7 g sin(theta) on a 30 degree plane; w r = v (rolling); a ball of
    fixed rotation on a frictionless plane slides at g sin(theta)."""
    th = math.radians(30)
    n = (math.sin(th), math.cos(th), 0.0)
    down = np.array([math.cos(th), -math.sin(th), 0.0])
    with kyu.World(gravity=(0, -G, 0), enable_sleep=False) as w:
        w.add_collider("plane", normal=n, friction=0.5)
        h = w.add_body(position=tuple(0.5 * c for c in n), radius=0.5, friction=0.5)
        w.step(30)
        v1 = float(w.velocities([h])[0] @ down)
        w.step(60)
        v2 = float(w.velocities([h])[0] @ down)
        assert (v2 - v1) / 1.0 == pytest.approx(5 / 7 * G * math.sin(th), rel=0.01)
        spin = w.angular_velocities()[0]
        assert abs(float(np.linalg.norm(spin)) * 0.5 - v2) < 1e-3 * v2
        q = w.rotations()
        assert q.shape == (1, 4) and abs(float(np.linalg.norm(q[0])) - 1) < 1e-6
        assert 0 < w.rotational_energy() < w.kinetic_energy()
        assert w.rotational_energy() == pytest.approx(0.5 * 0.4 * 1 * 0.25 * float(spin @ spin), rel=1e-5)


def test_spin_setters_turntables_and_bad_spin():
    with kyu.World(gravity=(0, 0, 0), tangential_restitution=0.5) as w:
        assert w.settings()["tangential_restitution"] == pytest.approx(0.5)
        a = w.add_body(position=(0, 0, 0), angular_velocity=(0, 0, 2), inertia_scale=5 / 3)
        b = w.add_body(position=(3, 0, 0), fixed_rotation=True)
        w.set_angular_velocities([[1, 2, 3]], [a])
        assert w.angular_velocities([a])[0].tolist() == [1, 2, 3]
        lx, ly, lz = w.angular_momentum()
        assert (lx, ly, lz) == pytest.approx((2 / 3 * 0.25, 4 / 3 * 0.25, 6 / 3 * 0.25), rel=1e-6)
        with pytest.raises(kyu.InvalidArgumentError):
            w.set_angular_velocities([[0, 1, 0]], [b])  # fixed rotation takes only zero
        with pytest.raises(kyu.KyuError):
            w.add_body(position=(6, 0, 0), rolling_resistance=-1)
        with pytest.raises(kyu.KyuError):
            w.add_body(position=(6, 0, 0), angular_velocity=(math.nan, 0, 0))
        with pytest.raises(kyu.InvalidArgumentError):
            w.add_collider("box", half_extents=(1, 1, 1), angular_velocity=(0, 1, 0))  # static
        w.add_collider("box", position=(0, -5, 0), half_extents=(3, 0.1, 3), motion="kinematic",
                       angular_velocity=(0, 1, 0), surface_velocity=(1, 0, 0), rolling_resistance=0.1)
        assert w.body_count == 2


def test_step_refuses_a_negative_count_and_zero_steps_nothing():
    with kyu.World() as w:
        w.add_collider("plane")
        w.add_body(position=(0, 1, 0))
        w.step(3)
        state = w.state_hash()
        with pytest.raises(kyu.InvalidArgumentError, match=r"step\(n\).*>= 0.*-1"):
            w.step(-1)
        with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
            w.step(-100)
        with pytest.raises(TypeError):
            w.step(1.5)
        w.step(0)  # zero steps: nothing runs, as range(0)
        assert w.step_index == 3 and w.state_hash() == state
        w.step(1)
        assert w.step_index == 4 and w.state_hash() != state
    scene = kyu.World.from_scene_text('{"bodies": [{"position": [0, 1, 0]}]}')
    with scene:
        with pytest.raises(kyu.InvalidArgumentError):
            scene.step(-1)
        scene.step(0)
        assert scene.step_index == 0


def test_impact_events_raise_when_the_world_records_none():
    with kyu.World() as w:  # enable_impact_events defaults to off
        w.add_collider("plane")
        w.add_body(position=(0, 0.6, 0), velocity=(0, -5, 0))
        w.step(10)  # it landed: an impact the world did not record
        assert len(w.begin_events()) + len(w.contacts(w.bodies()[0].item())) > 0
        with pytest.raises(kyu.KyuError, match="enable_impact_events=True"):
            w.impact_events()
    with kyu.World(enable_impact_events=True) as w:
        assert len(w.impact_events()) == 0  # on, and nothing hit yet: empty, no error


def test_one_body_spin_is_the_engines():
    with kyu.World(gravity=(0, 0, 0)) as w:
        a = w.add_body(position=(0, 0, 0), angular_velocity=(0, 0, 2))
        b = w.add_body(position=(3, 0, 0), fixed_rotation=True)
        assert w.angular_velocity(a) == (0.0, 0.0, 2.0) and w.rotation(a) == (0.0, 0.0, 0.0, 1.0)
        w.step(30)  # half a second at 2 rad/s: a turn of 1 rad about z
        assert list(w.angular_velocity(a)) == w.angular_velocities([a])[0].tolist()
        assert list(w.rotation(a)) == w.rotations([a])[0].tolist()
        assert w.rotation(a) == pytest.approx((0, 0, math.sin(0.5), math.cos(0.5)), abs=1e-5)
        w.set_angular_velocity(a, (1, -2, 0.5))
        assert w.angular_velocity(a) == (1.0, -2.0, 0.5)
        w.set_rotation(a, (0, 0, 0, 2))  # normalised
        assert w.rotation(a) == (0.0, 0.0, 0.0, 1.0)
        w.set_rotation(a, kyu.quat_from_axis_angle((1, 0, 0), 90))
        assert w.rotations([a])[0] == pytest.approx([math.sqrt(0.5), 0, 0, math.sqrt(0.5)])
        with pytest.raises(kyu.InvalidArgumentError):
            w.set_angular_velocity(b, (0, 1, 0))  # fixed rotation takes only zero
        w.set_angular_velocity(b, (0, 0, 0))
        with pytest.raises(kyu.InvalidArgumentError):
            w.set_rotation(a, (0, 0, 0, 0))
        with pytest.raises(kyu.InvalidArgumentError):
            w.set_rotation(a, (math.nan, 0, 0, 1))
        with pytest.raises(kyu.InvalidArgumentError):
            w.set_angular_velocity(a, (0, 0))
        w.remove_body(a)
        with pytest.raises(kyu.StaleHandleError):
            w.angular_velocity(a)
        with pytest.raises(kyu.StaleHandleError):
            w.rotation(a)


def test_forces_and_torques_push_for_the_next_step():
    with kyu.World(gravity=(0, 0, 0)) as w:
        a = w.add_body(position=(0, 0, 0), mass=2.0)
        b = w.add_body(position=(3, 0, 0), fixed_rotation=True)
        for _ in range(60):  # F = (4, 0, 0) N on 2 kg for 1 s: v = F t / m = 2 m/s
            w.apply_force(a, (4, 0, 0))
            w.step()
        assert w.velocity(a)[0] == pytest.approx(2.0, rel=1e-5)
        assert w.position(a)[0] == pytest.approx(1.0, rel=1e-4)  # F t^2 / 2m: the exact parabola
        c = w.position(a)
        w.apply_force(a, (0, 0, 1), point=(c[0] + 1, c[1], c[2]))  # r x F = (1, 0, 0) x (0, 0, 1) = (0, -1, 0)
        w.apply_torque(a, (0, 0, 0.5))
        assert w.force(a) == (0.0, 0.0, 1.0) and w.torque(a) == pytest.approx((0.0, -1.0, 0.5))
        w.step(2)  # the first step pushed, then they were cleared
        assert w.force(a) == (0.0, 0.0, 0.0) and w.torque(a) == (0.0, 0.0, 0.0)
        inertia = 0.4 * 2.0 * 0.5 ** 2
        assert w.angular_velocity(a) == pytest.approx((0, -1 / inertia / 60, 0.5 / inertia / 60), rel=1e-5)
        w.apply_torque(b, (1, 0, 0))  # fixed rotation: accepted, ignored
        assert w.torque(b) == (0.0, 0.0, 0.0)
        w.apply_force(a, (60, 0, 0))
        assert w.update(2.5 / 60) == 2  # an update pushes through every step it runs
        assert w.velocity(a)[0] == pytest.approx(2.0 + 2 * 30 / 60, rel=1e-5)  # 0.5 m/s a step, twice
        with pytest.raises(kyu.InvalidArgumentError):
            w.apply_force(a, (math.nan, 0, 0))
        with pytest.raises(kyu.InvalidArgumentError):
            w.apply_torque(a, (0, math.inf, 0))
        with pytest.raises(kyu.InvalidArgumentError):
            w.apply_force(a, (1, 0, 0), point=(0, math.nan, 0))
        w.remove_body(a)
        with pytest.raises(kyu.StaleHandleError):
            w.apply_force(a, (1, 0, 0))
