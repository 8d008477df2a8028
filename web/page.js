// SPDX-License-Identifier: MIT
// The page's script (web/index.html): draws what the engine (web/kyu_web.c through kyu.js) says,
// with canvas 2D. Only numbers and pointers cross into wasm; kyu_web_bodies gives 8 floats a body
// (position x y z, orientation quaternion x y z w, radius) in wasm memory.
// ?test=STEPS steps both scenes STEPS times first and writes their state hashes into #test, the
// lines build/web/kyu-web-hash prints natively (tests/tools/wasm.sh compares them).
"use strict";

const HZ = [30, 60, 120, 240, 480];
const $ = (id) => document.getElementById(id);

// kyu.js is built with synchronous compilation (mk/wasm.mk): createKyu() returns the ready engine, so
// everything below, the test's hashes included, is done by the time the page has loaded.
function main(K) {
    const hash = (w) => K.UTF8ToString(K._kyu_web_state_hash(w));
    const impact = (w) => K.UTF8ToString(K._kyu_web_impact_json(w));
    const bodies = (w) => {
        const n = K._kyu_web_body_count(w), at = K._kyu_web_bodies(w) >> 2;
        return K.HEAPF32.slice(at, at + 8 * n); // a copy: memory may grow under a view
    };

    const test = new URLSearchParams(location.search).get("test");
    if (test !== null) runTest(K, Number(test), hash, impact);
    // Headless Chromium draws no frames, so animation frames never come: the test runs on timers.
    const nextFrame = test === null ? requestAnimationFrame : (f) => setTimeout(() => f(performance.now()), 16);

    // ---- the lesson --------------------------------------------------------------------------
    const sliders = ["e", "mu", "spin", "offset", "hz", "speed"];
    const value = (id) => Number($(id).value);
    let lesson = 0, paused = false, shown = "";
    function restart() {
        if (lesson) K._kyu_web_destroy(lesson);
        lesson = K._kyu_web_lesson_create(value("e"), value("mu"), value("spin"), value("offset"), HZ[value("hz")]);
    }
    function label() {
        for (const id of sliders) $(id + "-out").textContent = $(id).value;
        $("hz-out").textContent = "1/" + HZ[value("hz")] + " s";
        $("speed-out").textContent = value("speed") + "x";
    }
    for (const id of sliders)
        $(id).addEventListener("input", () => {
            label();
            if (id !== "speed") restart();
        });
    $("pause").onclick = () => {
        paused = !paused;
        $("pause").textContent = paused ? "Run" : "Pause";
    };
    $("step").onclick = () => {
        if (!paused) $("pause").onclick();
        K._kyu_web_step(lesson);
    };
    $("restart").onclick = restart;
    label();
    restart();

    // ---- billiards ---------------------------------------------------------------------------
    let table = K._kyu_web_billiards_create(0), aim = null;
    const TABLE = { scale: 300, cx: 410, cy: 220 }; // px per m; the table's centre on the canvas
    const toTable = (ev) => {
        const r = $("table").getBoundingClientRect();
        return [(ev.clientX - r.left - TABLE.cx) / TABLE.scale, (ev.clientY - r.top - TABLE.cy) / TABLE.scale];
    };
    $("table").addEventListener("pointerdown", (ev) => {
        const b = bodies(table), cue = 8 * 15, [x, z] = toTable(ev);
        if (Math.hypot(x - b[cue], z - b[cue + 2]) < 0.08) { // within about three radii of the cue ball
            aim = { from: [b[cue], b[cue + 2]], to: [x, z] };
            $("table").setPointerCapture(ev.pointerId);
        }
    });
    $("table").addEventListener("pointermove", (ev) => { if (aim) aim.to = toTable(ev); });
    $("table").addEventListener("pointerup", () => {
        if (!aim) return;
        let vx = 12 * (aim.from[0] - aim.to[0]), vz = 12 * (aim.from[1] - aim.to[1]); // 0.5 m of drag: 6 m/s
        const s = Math.hypot(vx, vz);
        if (s > 6) vx *= 6 / s, vz *= 6 / s;
        K._kyu_web_shoot(table, vx, vz);
        aim = null;
    });
    $("rack").onclick = () => {
        K._kyu_web_destroy(table);
        table = K._kyu_web_billiards_create(0);
    };

    // ---- the frame loop ----------------------------------------------------------------------
    let last = performance.now();
    function frame(now) {
        const seconds = Math.min((now - last) / 1000, 0.1);
        last = now;
        if (!paused) {
            K._kyu_web_advance(lesson, seconds * value("speed"));
            if (K._kyu_web_step_count(lesson) * (1 / HZ[value("hz")]) > 1.2) restart(); // the balls have left
        }
        const steps = K._kyu_web_step_count(lesson);
        drawLesson($("lesson"), bodies(lesson));
        $("lesson-status").textContent = `step ${steps}  t ${(steps / HZ[value("hz")]).toFixed(3)} s  ` +
            `state hash ${hash(lesson)}`;
        // A restarted collision keeps the last one's stages on show until its own impact.
        const json = impact(lesson);
        if (json === "null") lessonRecord = null;
        else if (json !== shown || !lessonRecord) {
            shown = json;
            $("impact-json").textContent = json;
            showStages(JSON.parse(json));
        }
        K._kyu_web_advance(table, seconds);
        drawTable($("table"), bodies(table), aim, TABLE);
        $("table-status").textContent = `${K._kyu_web_moving_count(table)} balls moving, kinetic energy ` +
            `${K._kyu_web_kinetic_energy(table).toFixed(4)} J, step ${K._kyu_web_step_count(table)}`;
        nextFrame(frame);
    }
    nextFrame(frame);
}

// web/hash.c's pour, made through the calls any page can make: 200 balls into a box on a plane.
function pour(K) {
    const w = K._kyu_web_create(0, -9.8125, 0, 120);
    K._kyu_web_add_plane(w, 0, 1, 0, 0, 0.375, 0.5);
    K._kyu_web_add_box(w, -1.125, 1, 0, 0.125, 1, 1.25, 0.375, 0.5);
    K._kyu_web_add_box(w, 1.125, 1, 0, 0.125, 1, 1.25, 0.375, 0.5);
    K._kyu_web_add_box(w, 0, 1, -1.125, 1, 1, 0.125, 0.375, 0.5);
    K._kyu_web_add_box(w, 0, 1, 1.125, 1, 1, 0.125, 0.375, 0.5);
    for (let i = 0; i < 200; i++)
        K._kyu_web_add_ball(w, -0.75 + 0.25 * (i % 7) + 0.0078125 * (i % 5), 0.5 + 0.25 * Math.floor(i / 49), -0.75 + 0.25 * (Math.floor(i / 7) % 7),
                            0, 0, 0, 0.0625 + 0.015625 * (i % 3), 1, 0.375, 0.5);
    return w;
}

// The scenes stepped `steps` times, hashes at every tenth of the run and the end (web/hash.c).
function runTest(K, steps, hash, impact) {
    const lines = [];
    const scene = (name, w) => {
        for (let s = 1; s <= steps; s++) {
            if (K._kyu_web_step(w) !== 0) { lines.push(`${name} step ${s} failed`); break; }
            if (s === steps || (steps >= 10 && s % Math.floor(steps / 10) === 0)) lines.push(`${name} ${s} ${hash(w)}`);
        }
        return w;
    };
    K._kyu_web_destroy(scene("billiards", K._kyu_web_billiards_create(1)));
    const w = scene("lesson", K._kyu_web_lesson_create(0.75, 0.25, 20, 0.25, 120)); // web/hash.c's TEST_LESSON
    lines.push("lesson-impact " + impact(w));
    K._kyu_web_destroy(w);
    K._kyu_web_destroy(scene("pour", pour(K)));
    $("test").textContent = lines.join("\n");
    document.body.dataset.test = "done";
}

// ---- drawing ----------------------------------------------------------------------------------

// v rotated by the unit quaternion q = (x, y, z, w): v + 2w (u x v) + 2 u x (u x v), u = q.xyz.
function rotate(q, v) {
    const [x, y, z, w] = q;
    const t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
    return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]),
        v[2] + w * t[2] + (x * t[1] - y * t[0])];
}

// A ball seen from above (x right, z down), shaded, with a dot fixed on its surface so that
// rolling and spin show.
function ball(g, b, i, view, colour) {
    const x = view.cx + view.scale * b[8 * i], y = view.cy + view.scale * b[8 * i + 2], r = view.scale * b[8 * i + 7];
    const shade = g.createRadialGradient(x - r / 3, y - r / 3, r / 8, x, y, r);
    shade.addColorStop(0, "#ffffff");
    shade.addColorStop(0.25, colour);
    shade.addColorStop(1, "#111111");
    g.fillStyle = shade;
    g.beginPath();
    g.arc(x, y, r, 0, 2 * Math.PI);
    g.fill();
    let m = rotate(b.slice(8 * i + 3, 8 * i + 7), [0.6, 0.8, 0]);
    if (m[1] < 0) m = m.map((c) => -c); // the dot on the upper half (there is one each side)
    g.fillStyle = "rgba(255,255,255,0.85)";
    g.beginPath();
    g.arc(x + r * m[0], y + r * m[2], Math.max(1.5, r * 0.22 * m[1]), 0, 2 * Math.PI);
    g.fill();
}

let lessonRecord = null;

function drawLesson(canvas, b) {
    const g = canvas.getContext("2d"), view = { scale: 250, cx: 300, cy: 150 };
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.strokeStyle = "#e4ded0";
    for (let x = 0; x <= canvas.width; x += 25) { g.beginPath(); g.moveTo(x, 0); g.lineTo(x, canvas.height); g.stroke(); }
    for (let y = 0; y <= canvas.height; y += 25) { g.beginPath(); g.moveTo(0, y); g.lineTo(canvas.width, y); g.stroke(); }
    ball(g, b, 0, view, "#d9482b");
    ball(g, b, 1, view, "#2b6cd9");
    g.font = "13px DejaVu Sans, sans-serif";
    g.fillStyle = "#1d2330";
    g.fillText("A", view.cx + view.scale * b[0] - 4, view.cy + view.scale * b[2] - 30);
    g.fillText("B", view.cx + view.scale * b[8] - 4, view.cy + view.scale * b[10] - 30);
    const r = lessonRecord;
    if (!r) return;
    // The last impact: both balls where they met (dashed), the point, the normal (other to body)
    // and the impulse on the event's body, normal plus friction.
    g.strokeStyle = "#7d7668";
    g.setLineDash([4, 3]);
    for (const side of [r.a, r.b]) {
        const at = add(side.p0, scale(side.v0, r.time * r.dt));
        g.beginPath();
        g.arc(view.cx + view.scale * at[0], view.cy + view.scale * at[2], view.scale * side.r, 0, 2 * Math.PI);
        g.stroke();
    }
    g.setLineDash([]);
    const px = view.cx + view.scale * r.point[0], py = view.cy + view.scale * r.point[2];
    const arrow = (dx, dz, colour) => {
        g.strokeStyle = colour;
        g.lineWidth = 2;
        g.beginPath();
        g.moveTo(px, py);
        g.lineTo(px + dx, py + dz);
        g.stroke();
        g.lineWidth = 1;
    };
    arrow(60 * r.normal[0], 60 * r.normal[2], "#1d2330");
    arrow(40 * (r.jn * r.normal[0] + r.jt[0]), 40 * (r.jn * r.normal[2] + r.jt[2]), "#d98c00");
    g.fillStyle = "#1d2330";
    g.beginPath();
    g.arc(px, py, 3, 0, 2 * Math.PI);
    g.fill();
    g.fillText("n", px + 62 * r.normal[0], py + 62 * r.normal[2] + 4);
}

const COLOURS = ["#f2c12e", "#2b4fd9", "#d92b2b", "#7a2bd9", "#e87d1e", "#1e8a3c", "#8a1e1e", "#111111",
    "#f2c12e", "#2b4fd9", "#d92b2b", "#7a2bd9", "#e87d1e", "#1e8a3c", "#8a1e1e", "#f8f8f0"];

function drawTable(canvas, b, aim, view) {
    const g = canvas.getContext("2d"), s = view.scale;
    g.fillStyle = "#5a3b1f"; // the cushions' rails
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = "#1d6b45"; // the cloth's playing area, 2.54 m by 1.27 m
    g.fillRect(view.cx - 1.27 * s, view.cy - 0.635 * s, 2.54 * s, 1.27 * s);
    g.fillStyle = "rgba(255,255,255,0.25)";
    g.beginPath();
    g.arc(view.cx - 0.635 * s, view.cy, 3, 0, 2 * Math.PI);
    g.fill();
    for (let i = 0; i < b.length / 8; i++) ball(g, b, i, view, COLOURS[i]);
    if (aim) {
        const [fx, fz] = aim.from, [tx, tz] = aim.to;
        g.strokeStyle = "#f8f8f0";
        g.setLineDash([6, 4]);
        g.beginPath();
        g.moveTo(view.cx + s * fx, view.cy + s * fz);
        g.lineTo(view.cx + s * (2 * fx - tx), view.cy + s * (2 * fz - tz));
        g.stroke();
        g.setLineDash([]);
        g.strokeStyle = "#d9b36c";
        g.beginPath();
        g.moveTo(view.cx + s * fx, view.cy + s * fz);
        g.lineTo(view.cx + s * tx, view.cy + s * tz);
        g.stroke();
    }
}

// ---- the stages of the impact step -----------------------------------------------------------

const add = (a, b) => a.map((x, i) => x + b[i]);
const sub = (a, b) => a.map((x, i) => x - b[i]);
const scale = (a, k) => a.map((x) => x * k);
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const num = (x, digits = 4) => `<span class="num">${x.toFixed(digits)}</span>`;
const vec = (v, digits = 3) => `<span class="num">(${v.map((x) => x.toFixed(digits)).join(", ")})</span>`;
const verdict = (diff, tol) => diff <= tol ? `<span class="agree">agree (${diff.toExponential(1)})</span>`
    : `<span class="differ">DIFFER (${diff.toExponential(1)})</span>`;

function showStages(r) {
    lessonRecord = r;
    const A = r.a, B = r.b, dt = r.dt;
    // The lesson's own arithmetic. Without gravity each path is a straight line, so the chord
    // between the step's start and end is the path itself: P, Q, R give the exact time of impact.
    const C0 = sub(B.p0, A.p0), D = scale(sub(B.v0, A.v0), dt), rs = A.r + B.r;
    const P = dot(D, D), Q = dot(C0, D), R = dot(C0, C0) - rs * rs;
    const t = (-Q - Math.sqrt(Q * Q - P * R)) / P;
    const pa = add(A.p0, scale(A.v0, t * dt)), pb = add(B.p0, scale(B.v0, t * dt));
    const n = scale(sub(pa, pb), 1 / Math.hypot(...sub(pa, pb)));
    const point = add(pb, scale(n, B.r));
    // The velocity split at the contact point: the spins add w x r to each side.
    const ra = sub(r.point, pa), rb = sub(r.point, pb);
    const vrel = sub(add(A.v0, cross(A.w0, ra)), add(B.v0, cross(B.w0, rb)));
    const vn = dot(vrel, n), slip = sub(vrel, scale(n, vn));
    const jn = -(1 + r.e) * vn / (1 / A.m + 1 / B.m);
    const J = add(scale(r.normal, r.jn), r.jt), jt = Math.hypot(...r.jt);
    const va = add(A.v0, scale(J, 1 / A.m)), vb = sub(B.v0, scale(J, 1 / B.m));
    const wa = add(A.w0, scale(cross(ra, J), 1 / A.inertia)), wb = sub(B.w0, scale(cross(rb, J), 1 / B.inertia));
    const after = Math.max(...[sub(va, A.v1), sub(vb, B.v1), sub(wa, A.w1), sub(wb, B.w1)].map((d) => Math.hypot(...d)));
    const aabb = (b) => [0, 1, 2].map((d) => [Math.min(b.p0[d], b.p1[d]) - b.r, Math.max(b.p0[d], b.p1[d]) + b.r]);
    const ba = aabb(A), bb = aabb(B), overlap = [0, 1, 2].every((d) => ba[d][0] <= bb[d][1] && bb[d][0] <= ba[d][1]);
    const s = r.stats, a = "AB"[A.slot], b = "AB"[B.slot]; // the event's body first, the other second
    const stages = [
        ["Sweeps and swept boxes", `step ${r.step} (dt ${num(dt, 5)} s). ${a} from ${vec(A.p0)} at ${vec(A.v0)} m/s, ` +
            `${b} from ${vec(B.p0)} at ${vec(B.v0)} m/s; each path, grown by the radius, bounds a box.`],
        ["Grid cells and candidate pairs", `the grid pairs boxes that share a cell: engine ${s.candidate_pairs} ` +
            `candidate pair(s); the two swept boxes ${overlap ? "overlap" : "do not overlap"} (page).`],
        ["Time of impact from P, Q, R", `C0 = ${b} - ${a} = ${vec(C0)}, D = (v${b} - v${a}) dt = ${vec(D)}; P = D.D = ${num(P, 6)}, ` +
            `Q = C0.D = ${num(Q, 6)}, R = C0.C0 - (r${a} + r${b})^2 = ${num(R, 6)}; t = (-Q - sqrt(Q^2 - P R)) / P = ` +
            `${num(t, 6)} (page) and <span class="num" id="toi-engine">${r.time.toFixed(6)}</span> (engine, ` +
            `${(r.time * dt * 1000).toFixed(3)} ms into the step): ${verdict(Math.abs(t - r.time), 1e-5)}.`],
        ["Contact point and normal", `engine: point ${vec(r.point)}, normal (${b} to ${a}) ${vec(r.normal, 4)}; page, ` +
            `from the centres at t: ${vec(point)}, ${vec(n, 4)}: ${verdict(Math.hypot(...sub(n, r.normal)), 1e-4)}.`],
        ["Velocity split and reflection", `relative velocity of the contact points (spin included) ` +
            `${vec(vrel)}: normal part ${num(vn)} m/s (engine's approach ${num(r.approach)}), sliding part ${vec(slip)}. ` +
            `Normal impulse on ${a} j = -(1 + e) vn / (1/m${a} + 1/m${b}) = ${num(jn)} (page, e ${r.e}) and ${num(r.jn)} N s ` +
            `(engine): ${verdict(Math.abs(jn - r.jn), 1e-4 * Math.max(1, jn))}. Friction ${vec(r.jt, 4)}, ` +
            `|jt| ${num(jt)} ${jt < r.mu * r.jn * (1 - 1e-4) ? "&lt;" : "="} mu j = ${num(r.mu * r.jn)} ` +
            `(${jt < r.mu * r.jn * (1 - 1e-4) ? "the contact points stop sliding" : "they slide: Coulomb's bound"}). ` +
            `After: ${a} ${vec(A.v1)} m/s spinning ${vec(A.w1, 2)} rad/s, ${b} ${vec(B.v1)} m/s spinning ${vec(B.w1, 2)}; ` +
            `the page's v + J/m and w + r x J / I give the same: ${verdict(after, 1e-3)}.`],
        ["Escape of overlaps, kept and new pairs", `contacts kept at the end of the step: ${s.contacts}; pairs that ` +
            `began touching: ${s.begin_events}; deepest overlap after the escape ${num(s.max_overlap * 1000, 3)} mm.`],
        ["Islands and sleep", `awake bodies ${s.awake}, sleeping ${s.asleep}: nothing rests in free flight, so ` +
            `no island sleeps.`],
    ];
    $("stages").innerHTML = stages.map(([title, text]) => `<li><b>${title}</b>${text}</li>`).join("");
}

main(createKyu()); // last, once every function and constant above is defined
