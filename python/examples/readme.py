import kyu

with kyu.World(gravity=(0, -9.81, 0)) as w:              # kyu's defaults: dt 1/60 s, sleep on
    w.add_collider("plane", restitution=0.5)              # the ground, y = 0
    ball = w.add_body(position=(0, 2, 0), radius=0.25)
    w.add_bodies([(x, 4, 0) for x in range(1, 100)], radius=0.25)  # 99 more, one call
    for second in range(1, 5):
        w.step(60)
        y = w.positions()[:, 1]                           # (100, 3) float32 array, slot order
        print(f"t={w.time:.0f} s  ball {w.position(ball)[1]:.3f} m  mean {y.mean():.3f} m  asleep {w.sleeping_body_count}")
