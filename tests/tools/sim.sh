#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of the headless tools (issue 6): the scene loader through kyu-sim, the records, snapshots
# and resume, the progress bar, kyu-plot. Run by `make test` with BUILD set (binaries in
# $BUILD/tools/). Prints "ok   name" or "FAIL name: why" per check and "N passed, N failed[, N
# skipped]" at the end; exits non-zero when a check failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
SIM="$BUILD/tools/kyu-sim"
PLOT=tools/kyu-plot
SCENES=samples/scenes
. tests/tools/lib.sh

if ! pkg-config --exists libcjson 2>/dev/null; then
    skipped "kyu-sim" "libcjson is not installed (apt-get install -y libcjson-dev)"
    finish
fi
if [ ! -x "$SIM" ]; then
    no "kyu-sim" "$SIM was not built (make $SIM)"
    finish
fi

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

# A summary field (numbers and strings as they appear).
field() { sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$1/summary.json"; }

# Whether this kyu-sim reads mesh files (built with assimp, libassimp-dev): what needs it is skipped
# without it, as a tool test is when its package is missing.
printf '{"colliders": [{"type": "mesh", "file": "none.stl"}]}\n' > "$T/probe.json"
"$SIM" "$T/probe.json" --out "$T/probe" > /dev/null 2> "$T/probe.err"
have_assimp=yes
grep -q "no mesh reader" "$T/probe.err" && have_assimp=no
no_assimp() { skipped "$1" "kyu-sim was built without assimp (apt-get install -y libassimp-dev, then make)"; }

# ---- every sample scene runs ------------------------------------------------------------------

for scene in "$SCENES"/*.json; do
    name=$(basename "$scene" .json)
    if grep -q '"file":' "$scene" && [ "$have_assimp" = no ]; then
        no_assimp "sample_${name}_runs"
        continue
    fi
    out="$T/sample-$name"
    if "$SIM" "$scene" --steps 5 --out "$out" --quiet > "$T/stdout" 2> "$T/stderr"; then
        if [ "$(field "$out" last_step)" = 5 ] && [ -s "$out/series.csv" ]; then
            ok "sample_${name}_runs"
        else
            no "sample_${name}_runs" "no summary of 5 steps in $out"
        fi
    else
        no "sample_${name}_runs" "exit $?: $(head -c 300 "$T/stderr")"
    fi
done

# ---- bad input: exit 2 and a message naming the file and the place ---------------------------

# expect_bad NAME TEXT WANT: the scene TEXT must be refused with exit 2 and a message containing
# "$T/NAME.json" and WANT.
expect_bad() {
    printf '%s\n' "$2" > "$T/$1.json"
    "$SIM" "$T/$1.json" --out "$T/out-$1" > "$T/stdout" 2> "$T/stderr"
    code=$?
    msg=$(cat "$T/stderr")
    if [ "$code" -ne 2 ]; then
        no "bad_scene_$1" "exit $code, want 2 ($msg)"
    elif ! grep -qF "$T/$1.json" "$T/stderr" || ! grep -qF "$3" "$T/stderr"; then
        no "bad_scene_$1" "message does not name the file and \"$3\": $msg"
    elif [ "$(wc -l < "$T/stderr")" -ne 1 ]; then
        no "bad_scene_$1" "want one line, got: $msg"
    else
        ok "bad_scene_$1"
    fi
}

expect_bad syntax_error '{"bodies": [{"position": [0, 1, 0]},
  {"position": [0, 1 0]}]}' ".json:2:22: syntax error near \`0]}]}\`"
expect_bad trailing_text '{"bodies": []} x' ".json:1:16: syntax error"
expect_bad empty_file '' ".json:1:1: syntax error: the file is empty"
expect_bad not_an_object '[1, 2]' "must be a JSON object"
expect_bad unknown_key '{"bodies": [{"positon": [0, 1, 0]}]}' "key \`bodies[0].positon\`: unknown key"
expect_bad unknown_top_key '{"world": {}, "colider": []}' "key \`colider\`: unknown key"
expect_bad duplicate_key '{"run": {"steps": 1, "steps": 2}}' "key \`run.steps\`: duplicate key"
expect_bad wrong_type '{"bodies": [{"position": "up"}]}' \
    "key \`bodies[0].position\`: must be an array of 3 numbers"
expect_bad wrong_type_bool '{"world": {"enable_sleep": 1}}' \
    "key \`world.enable_sleep\`: must be true or false, got a number"
expect_bad negative_radius '{"bodies": [{"position": [0, 1, 0], "radius": -1}]}' \
    "key \`bodies[0].radius\`: must be > 0 and <= 1e6, got -1"
expect_bad zero_mass '{"body_defaults": {"mass": 0}}' "key \`body_defaults.mass\`: must be > 0"
expect_bad restitution '{"bodies": [{"position": [0, 0, 0], "restitution": 1.5}]}' \
    "key \`bodies[0].restitution\`: must be in [0, 1], got 1.5"
expect_bad huge_number '{"bodies": [{"position": [0, 1e999, 0]}]}' \
    "key \`bodies[0].position[1]\`: must be a finite number"
expect_bad not_whole '{"run": {"steps": 2.5}}' "key \`run.steps\`: must be a whole number"
expect_bad periodic_no_axis '{"world": {"periodic": {"lower": [0, 0, 0], "upper": [4, 4, 4]}}}' \
    "key \`world.periodic\`: names no periodic axis"
expect_bad periodic_no_corner '{"world": {"periodic": {"x": true, "upper": [4, 4, 4]}}}' \
    "missing required key \"lower\""
expect_bad periodic_empty '{"world": {"periodic": {"x": true, "lower": [0, 0, 0], "upper": [0, 4, 4]}}}' \
    "periodic.upper.x = 0 must be above periodic.lower.x = 0 (x is periodic)"
expect_bad periodic_body_too_big '{"world": {"periodic": {"x": true, "lower": [0, 0, 0], "upper": [1, 1, 1]}},
  "bodies": [{"position": [0.5, 0.5, 0.5], "radius": 0.3}]}' "quarter of the periodic length 1 along x"
expect_bad too_many_bodies \
    '{"generators": [{"type": "random_box", "min": [0, 0, 0], "max": [1, 1, 1], "count": 20000000}]}' \
    "key \`generators[0].count\`: the scene would have 20000000 bodies"
expect_bad lattice_too_big \
    '{"generators": [{"type": "lattice", "origin": [0, 0, 0], "count": [100000, 100000, 100000], "spacing": 1}]}' \
    "key \`generators[0].count\`: makes 1000000000000000 bodies, more than the limit"
expect_bad box_too_full \
    '{"generators": [{"type": "random_box", "min": [0, 0, 0], "max": [1, 1, 1], "count": 1000, "body": {"radius": 0.4}}]}' \
    "key \`generators[0].count\`: found room for only"
expect_bad zero_half_extent '{"colliders": [{"type": "box", "half_extents": [1, 0, 1]}]}' \
    "key \`colliders[0].half_extents[1]\`: must be > 0, got 0"
expect_bad flat_hull \
    '{"colliders": [{"type": "hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}]}' \
    "key \`colliders[0].points\`: must span a volume"
expect_bad mesh_index \
    '{"colliders": [{"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 3]]}]}' \
    "key \`colliders[0].triangles[0][2]\`: must be between 0 and 2, got 3"
expect_bad shape_key '{"colliders": [{"type": "box", "half_extents": [1, 1, 1], "radius": 2}]}' \
    "key \`colliders[0].radius\`: unknown key"
expect_bad static_velocity '{"colliders": [{"type": "plane", "velocity": [1, 0, 0]}]}' \
    "key \`colliders[0].velocity\`: only a collider with \"motion\": \"kinematic\" moves"
expect_bad unknown_shape '{"colliders": [{"type": "sphere"}]}' \
    "key \`colliders[0].type\`: must be one of: plane, box, capsule, hull, mesh"
expect_bad endless_emitter \
    '{"generators": [{"type": "emitter", "position": [0, 0, 0], "rate": 10}]}' \
    "key \`generators[0]\`: an emitter needs \"count\" or \"stop\""
expect_bad mass_and_density '{"bodies": [{"position": [0, 0, 0], "mass": 1, "density": 2}]}' \
    "key \`bodies[0]\`: give \"mass\" or \"density\", not both"
expect_bad world_settings '{"world": {"linear_slop": 1, "contact_margin": 0.5}}' \
    "key \`world\`: kyu refused the world settings: contact_margin = 0.5 is below linear_slop = 1"
expect_bad record_format '{"run": {"record": {"format": "xml"}}}' \
    "key \`run.record.format\`: must be one of: none, csv, jsonl, both"
expect_bad endless_inserter \
    '{"generators": [{"type": "insert", "region": {"shape": "box", "center": [0, 1, 0], "half_extents": [1, 1, 1]}, "rate": 10}]}' \
    "key \`generators[0]\`: an inserter needs \"count\", \"volume_fraction\" or \"stop\""
expect_bad inserter_region_key \
    '{"generators": [{"type": "insert", "region": {"shape": "box", "center": [0, 1, 0], "half_extents": [1, 1, 1], "radius": 1}, "count": 5}]}' \
    "key \`generators[0].region.radius\`: is not a key of a box region"
expect_bad inserter_rectangle_extents \
    '{"generators": [{"type": "insert", "region": {"shape": "rectangle", "center": [0, 1, 0], "half_extents": [1, 1, 1]}, "count": 5}]}' \
    "key \`generators[0].region.half_extents\`: must be [x, z]"
expect_bad inserter_distribution_key \
    '{"generators": [{"type": "insert", "region": {"shape": "box", "center": [0, 1, 0], "half_extents": [1, 1, 1]}, "radius": {"distribution": "lognormal", "mean": 0.1, "sigma": 0.2, "min": 0.05, "max": 0.2}, "count": 5}]}' \
    "key \`generators[0].radius.mean\`: unknown key"
expect_bad inserter_mixture_lengths \
    '{"generators": [{"type": "insert", "region": {"shape": "box", "center": [0, 1, 0], "half_extents": [1, 1, 1]}, "radius": {"distribution": "mixture", "radii": [0.1, 0.2], "weights": [1]}, "count": 5}]}' \
    "key \`generators[0].radius.weights\`: has 1 numbers, radii has 2"
expect_bad inserter_refused_by_kyu \
    '{"generators": [{"type": "insert", "region": {"shape": "box", "center": [0, 1, 0], "half_extents": [0.1, 0.1, 0.1]}, "count": 5}]}' \
    "key \`generators[0]\`: kyu refused the inserter: an argument is out of range: region: its narrowest half size 0.1 m cannot hold the largest radius 0.5 m"
expect_bad measure_box \
    '{"run": {"measure": [{"min": [0, 1, 0], "max": [1, 0, 1]}]}}' \
    "key \`run.measure[0].max[1]\`: must be above min (1), got 0"
expect_bad mesh_file_missing '{"colliders": [{"type": "mesh", "file": "no-such.stl"}]}' \
    "key \`colliders[0].file\`: cannot read"
expect_bad mesh_file_and_vertices \
    '{"colliders": [{"type": "mesh", "file": "a.stl", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 2]]}]}' \
    "key \`colliders[0]\`: give \"file\" or \"vertices\" and \"triangles\", not both"

# A missing file, and bad arguments.
"$SIM" "$T/missing.json" --out "$T/o" > "$T/stdout" 2> "$T/stderr"
code=$?
if [ "$code" -eq 2 ] && grep -qF "$T/missing.json: cannot open" "$T/stderr"; then
    ok "missing_scene_file"
else
    no "missing_scene_file" "exit $code: $(cat "$T/stderr")"
fi
for args in "--steps -3" "--threads 0" "--format xml" "--bogus 1" "--save-snapshot 12" "--every" \
    "--measure 0,0,0,1,1" "--measure 0,0,0,1,-1,1"; do
    # shellcheck disable=SC2086
    "$SIM" "$SCENES/bounce.json" $args --out "$T/o" > "$T/stdout" 2> "$T/stderr"
    code=$?
    if [ "$code" -eq 2 ] && grep -q "try --help" "$T/stderr"; then
        ok "bad_argument $args"
    else
        no "bad_argument $args" "exit $code: $(cat "$T/stderr")"
    fi
done
"$SIM" > "$T/stdout" 2> "$T/stderr"
[ $? -eq 2 ] && ok "no_scene_argument" || no "no_scene_argument" "want exit 2"

# ---- records ------------------------------------------------------------------------------------

out="$T/bounce"
"$SIM" "$SCENES/bounce.json" --steps 100 --every 10 --format both --out "$out" > "$T/stdout" 2>&1
# 4 bodies, frames at steps 0, 10, ..., 100: 11 frames, 44 rows, plus a header line each.
csv=$(wc -l < "$out/frames.csv" | tr -d ' ')
jsonl=$(wc -l < "$out/frames.jsonl" | tr -d ' ')
series=$(wc -l < "$out/series.csv" | tr -d ' ')
if [ "$csv" = 45 ] && [ "$jsonl" = 45 ] && [ "$series" = 12 ] && [ "$(field "$out" rows)" = 44 ]; then
    ok "record_row_counts"
else
    no "record_row_counts" "csv $csv, jsonl $jsonl, series $series lines; want 45, 45, 12"
fi
if [ "$(head -n 1 "$out/frames.csv")" = "step,t,id,x,y,z,vx,vy,vz,r,awake,wx,wy,wz,qx,qy,qz,qw" ] &&
    head -n 1 "$out/frames.jsonl" | grep -q '^{"kyu_recording":1,"scene":"samples/scenes/bounce.json","dt":0.0041666[0-9]*,"every":10}$' &&
    sed -n 2p "$out/frames.jsonl" | grep -q '^{"step":0,"t":0,"id":1,"p":\[0,2.0999999[0-9]*,0\],"v":\[0,0,0\],"r":0.100000001[0-9]*,"awake":true,"w":\[0,0,0\],"q":\[0,0,0,1\]}$'; then
    ok "record_format"
else
    no "record_format" "$(head -n 2 "$out/frames.jsonl")"
fi
# The same frame in CSV and JSONL.
last_csv=$(tail -n 1 "$out/frames.csv")
last_json=$(tail -n 1 "$out/frames.jsonl" | sed -e 's/"[a-z]*"://g' -e 's/[][{}]//g' -e 's/true,/1,/' -e 's/false,/0,/')
[ "$last_csv" = "$last_json" ] && ok "record_csv_matches_jsonl" ||
    no "record_csv_matches_jsonl" "$last_csv vs $last_json"
# Only the records asked for.
"$SIM" "$SCENES/bounce.json" --steps 7 --every 3 --format csv --out "$T/csv-only" --quiet
frames=$(cut -d, -f1 "$T/csv-only/frames.csv" | tail -n +2 | sort -un | tr '\n' ' ')
if [ ! -e "$T/csv-only/frames.jsonl" ] && [ "$frames" = "0 3 6 7 " ]; then
    ok "record_every_and_last_frame"
else
    no "record_every_and_last_frame" "frames at steps: $frames"
fi
if [ "$(cat "$T/stdout" | grep -c "bodies 4")" = 1 ] && [ "$(field "$out" bodies)" = 4 ]; then
    ok "summary_text_and_json"
else
    no "summary_text_and_json" "$(cat "$T/stdout")"
fi

# The event cap: a gas whose steps may resolve one impact each hits it, and the text says in how
# many steps (the number summary.json counts); a run that never hits it says nothing of it.
cat > "$T/capped.json" <<'EOF'
{"world": {"gravity": [0, 0, 0], "max_events_per_step": 1, "enable_sleep": false},
 "generators": [{"type": "random_box", "min": [-2, -2, -2], "max": [2, 2, 2], "count": 300, "speed": 20,
                 "body": {"radius": 0.1, "restitution": 1, "friction": 0}}],
 "run": {"steps": 40, "record": {"format": "none"}}}
EOF
"$SIM" "$T/capped.json" --out "$T/capped" > "$T/stdout" 2> "$T/stderr"
hits=$(field "$T/capped" event_cap_hits)
if [ "${hits:-0}" -gt 0 ] && grep -q "^  event cap hit in $hits of 40 steps (max_events_per_step 1)" "$T/stdout"; then
    ok "summary_says_the_event_cap_was_hit ($hits of 40 steps)"
else
    no "summary_says_the_event_cap_was_hit" "summary.json: ${hits:-none}; text: $(cat "$T/stdout" "$T/stderr")"
fi
"$SIM" "$SCENES/bounce.json" --steps 20 --format none --out "$T/uncapped" > "$T/stdout" 2>&1
if [ "$(field "$T/uncapped" event_cap_hits)" = 0 ] && grep -q "^  bodies 4" "$T/stdout" && ! grep -q "event cap" "$T/stdout"; then
    ok "summary_is_silent_when_the_cap_was_not_hit"
else
    no "summary_is_silent_when_the_cap_was_not_hit" "$(cat "$T/stdout")"
fi

# series.csv's contacts are the summary's: pairs touching, sleeping islands included (the step's
# counter, awake_contacts, reads 0 once a pile sleeps); sensor overlaps are not contacts.
# col FILE NAME: the column NAME of the last row of a CSV file.
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } END { print (c ? $c : "none") }' "$1"; }
"$SIM" "$SCENES/pile.json" --format none --out "$T/slept" --quiet
c=$(col "$T/slept/series.csv" contacts) a=$(col "$T/slept/series.csv" awake_contacts)
if [ "$(col "$T/slept/series.csv" sleeping)" = 1000 ] && [ "$c" -gt 1000 ] && [ "$c" = "$(field "$T/slept" contacts)" ] &&
    [ "$a" = 0 ] && [ "$a" = "$(field "$T/slept" contacts_last_step)" ]; then
    ok "series_contacts_count_sleeping_islands ($c, awake_contacts $a)"
else
    no "series_contacts_count_sleeping_islands" "series contacts $c, awake_contacts $a; summary $(field "$T/slept" contacts), $(field "$T/slept" contacts_last_step)"
fi
cat > "$T/nine.json" <<'EOF'
{"colliders": [{"type": "plane"}],
 "body_defaults": {"radius": 0.1},
 "bodies": [{"position": [0, 0.1, 0]}, {"position": [1, 0.1, 0]}, {"position": [2, 0.1, 0]},
            {"position": [0, 0.1, 1]}, {"position": [1, 0.1, 1]}, {"position": [2, 0.1, 1]},
            {"position": [0, 0.1, 2]}, {"position": [1, 0.1, 2]}, {"position": [2, 0.1, 2]},
            {"position": [0, 0.1, 0.15], "sensor": true, "gravity_scale": 0}],
 "run": {"steps": 120, "record": {"format": "none"}}}
EOF
"$SIM" "$T/nine.json" --out "$T/nine" --quiet
c=$(col "$T/nine/series.csv" contacts)
[ "$c" = 9 ] && [ "$(field "$T/nine" contacts)" = 9 ] && ok "contacts_are_the_touching_pairs_without_sensors" ||
    no "contacts_are_the_touching_pairs_without_sensors" "series $c, summary $(field "$T/nine" contacts), want 9"

# ---- the physics seen through the tool ---------------------------------------------------------

out="$T/cradle"
"$SIM" "$SCENES/newtons-cradle.json" --out "$out" --format csv --quiet
v_last=$(awk -F, '$1 == 60 && $3 == 5 { print $7 }' "$out/frames.csv")
v_first=$(awk -F, '$1 == 60 && $3 == 1 { print $7 }' "$out/frames.csv")
if awk -v a="$v_last" -v b="$v_first" 'BEGIN { exit !(a > 1.999 && a < 2.001 && b * b < 1e-4) }'; then
    ok "newtons_cradle_passes_momentum"
else
    no "newtons_cradle_passes_momentum" "last ball $v_last m/s, first $v_first m/s"
fi
out="$T/gas"
"$SIM" "$SCENES/gas.json" --steps 300 --format none --out "$out" --quiet
e0=$(field "$out" total_energy_start)
e1=$(field "$out" total_energy)
if awk -v a="$e0" -v b="$e1" 'BEGIN { r = b / a; exit !(a > 1000 && r > 0.9999 && r < 1.0001) }'; then
    ok "gas_keeps_its_energy"
else
    no "gas_keeps_its_energy" "energy $e0 -> $e1"
fi
out="$T/bullets"
"$SIM" "$SCENES/bullets.json" --out "$out" --format csv --quiet
beyond_wall=$(awk -F, 'NR > 1 && $4 > 10' "$out/frames.csv" | wc -l | tr -d ' ')
[ "$beyond_wall" = 0 ] && ok "bullets_never_pass_the_wall" ||
    no "bullets_never_pass_the_wall" "$beyond_wall rows beyond the wall"
out="$T/bowl"
"$SIM" "$SCENES/pour-bowl.json" --steps 360 --every 360 --format csv --out "$out" --quiet
inside=$(awk -F, 'NR > 1 && $1 == 360 && $5 > -0.05 && $4 * $4 + $6 * $6 < 2.25' "$out/frames.csv" | wc -l | tr -d ' ')
[ "$(field "$out" bodies)" = 400 ] && [ "$inside" = 400 ] && ok "pour_fills_the_bowl" ||
    no "pour_fills_the_bowl" "$(field "$out" bodies) bodies, $inside inside the bowl"

# ---- determinism: threads, seeds ----------------------------------------------------------------

"$SIM" "$SCENES/gas.json" --steps 60 --threads 1 --format none --out "$T/t1" --quiet
"$SIM" "$SCENES/gas.json" --steps 60 --threads 2 --format none --out "$T/t2" --quiet
"$SIM" "$SCENES/gas.json" --steps 60 --seed 99 --format none --out "$T/s99" --quiet
"$SIM" "$SCENES/gas.json" --steps 60 --seed 99 --format none --out "$T/s99b" --quiet
h1=$(field "$T/t1" state_hash) h2=$(field "$T/t2" state_hash)
h3=$(field "$T/s99" state_hash) h4=$(field "$T/s99b" state_hash)
[ -n "$h1" ] && [ "$h1" = "$h2" ] && ok "threads_give_the_same_state" ||
    no "threads_give_the_same_state" "$h1 vs $h2"
[ -n "$h3" ] && [ "$h3" = "$h4" ] && [ "$h3" != "$h1" ] && ok "seed_changes_the_random_box" ||
    no "seed_changes_the_random_box" "seed 99: $h3 and $h4, scene seed: $h1"

# ---- snapshots and resume ------------------------------------------------------------------------

# resume_check NAME SCENE SAVE END: a run saved at step SAVE and resumed gives the same state at
# step END as an uninterrupted run (and the state changed in between, so the check can fail).
resume_check() {
    d="$T/resume-$1"
    mkdir -p "$d"
    "$SIM" "$2" --steps "$4" --format none --out "$d/full" --save-snapshot "$3:$d/snap.kys" --quiet
    "$SIM" "$2" --steps "$3" --format none --out "$d/half" --quiet
    "$SIM" "$2" --steps "$4" --format csv --every 50 --resume "$d/snap.kys" --out "$d/resumed" \
        > "$d/stdout" 2> "$d/stderr"
    code=$?
    a=$(field "$d/full" state_hash) b=$(field "$d/resumed" state_hash)
    first=$(field "$d/resumed" first_step)
    if [ "$code" -ne 0 ]; then
        no "resume_$1" "exit $code: $(cat "$d/stderr")"
    elif [ -z "$a" ] || [ "$a" != "$b" ] || [ "$first" != "$3" ]; then
        no "resume_$1" "hash $a uninterrupted, $b resumed from step $first"
    elif [ "$(field "$d/half" state_hash)" = "$a" ]; then
        no "resume_$1" "the state did not change between steps $3 and $4: a weak check"
    else
        ok "resume_$1"
    fi
}
resume_check gas_300_of_600 "$SCENES/gas.json" 300 600
resume_check pile_60_of_200 "$SCENES/pile.json" 60 200
resume_check emitter_midway "$SCENES/shapes.json" 100 240
if [ "$have_assimp" = yes ]; then
    resume_check inserter_midway "$SCENES/hopper.json" 90 200
else
    no_assimp resume_inserter_midway
fi

# ---- inserters, measured boxes, the contact network ---------------------------------------------

if [ "$have_assimp" = yes ]; then
    # The hopper: an STL mesh read through assimp, filled by a lognormal inserter at 1.5 kg/s for 4 s.
    out="$T/hopper"
    "$SIM" "$SCENES/hopper.json" --format contacts --every 60 --out "$out" > "$T/stdout" 2> "$T/stderr"
    ins=$(sed -n 's/.*"generator": 0, "inserted": \([0-9]*\),.*"mass_requested": \([0-9.]*\),.*/\1 \2/p' "$out/summary.json")
    if [ "$(field "$out" bodies)" = "${ins%% *}" ] && [ "${ins%% *}" -gt 200 ] &&
        grep -q "inserter generators\[0\]: inserted ${ins%% *}, 5.99.* of 5.975 kg requested" "$T/stdout"; then
        ok "inserter_reports_inserted_and_requested (${ins%% *} bodies)"
    else
        no "inserter_reports_inserted_and_requested" "summary: $ins; stdout: $(cat "$T/stdout" "$T/stderr")"
    fi
    # The bodies leave the hopper through its outlet and heap up on the floor.
    heap=$(awk -F, '$1 == 360 && $3 == "heap" { print $4 }' "$out/measure.csv")
    [ -n "$heap" ] && [ "$heap" -gt 200 ] && ok "hopper_discharges_onto_its_floor ($heap bodies in the heap box)" ||
        no "hopper_discharges_onto_its_floor" "$heap bodies in the heap box: $(tail -n 2 "$out/measure.csv")"
    frames=$(grep -c '<DataSet' "$out/contacts.pvd")
    [ "$frames" = 7 ] && [ "$(ls "$out/contacts" | grep -c '^contacts_[0-9]\{6\}\.vtp$')" = 7 ] &&
        [ "$(head -n 1 "$out/measure.csv" | cut -d, -f1-8)" = "step,t,box,bodies,mass,packing_fraction,coordination,pressure" ] &&
        [ "$(wc -l < "$out/measure.csv")" = 8 ] && ok "contacts_and_measure_files" ||
        no "contacts_and_measure_files" "$frames data sets; measure.csv: $(head -n 2 "$out/measure.csv")"
    # A mesh from an STL file beside the scene (two triangles, a 2 m square scaled to 4 m): a ball
    # dropped on it rests on it.
    mkdir -p "$T/stl"
    printf 'solid floor\n facet normal 0 1 0\n  outer loop\n   vertex -1 0 -1\n   vertex -1 0 1\n   vertex 1 0 1\n  endloop\n endfacet\n facet normal 0 1 0\n  outer loop\n   vertex -1 0 -1\n   vertex 1 0 1\n   vertex 1 0 -1\n  endloop\n endfacet\nendsolid floor\n' > "$T/stl/floor.stl"
    printf '{"colliders": [{"type": "mesh", "file": "floor.stl", "scale": 2}], "bodies": [{"position": [1.5, 1, 0], "radius": 0.1}], "run": {"steps": 120}}\n' > "$T/stl/scene.json"
    "$SIM" "$T/stl/scene.json" --format csv --every 120 --out "$T/stl/out" > /dev/null 2> "$T/stderr"
    y=$(awk -F, '$1 == 120 { print $5 }' "$T/stl/out/frames.csv" 2>/dev/null)
    awk -v y="${y:-none}" 'BEGIN { exit !(y > 0.099 && y < 0.101) }' && ok "stl_mesh_holds_a_ball (y = $y)" ||
        no "stl_mesh_holds_a_ball" "y = ${y:-none}: $(cat "$T/stderr")"
else
    no_assimp inserter_reports_inserted_and_requested
    no_assimp hopper_discharges_onto_its_floor
    no_assimp contacts_and_measure_files
    no_assimp stl_mesh_holds_a_ball
fi

# --measure adds a box beside the scene's.
"$SIM" "$SCENES/bed.json" --steps 30 --every 30 --format none --measure -0.2,0,-0.2,0.2,0.3,0.2 --out "$T/m" \
    > /dev/null 2> "$T/stderr"
tail -n +2 "$T/m/measure.csv" | cut -d, -f3 | sort -u | tr '\n' ' ' | grep -q "^bed measure0 $" &&
    ok "measure_option_adds_a_box" || no "measure_option_adds_a_box" "$(cat "$T/stderr" "$T/m/measure.csv" 2>&1 | head -n 4)"

d="$T/resume-gas_300_of_600"
if [ -f "$d/snap.kys" ]; then
    head -c 200 "$d/snap.kys" > "$d/cut.kys" && cp "$d/snap.kys.json" "$d/cut.kys.json"
    "$SIM" "$SCENES/gas.json" --resume "$d/cut.kys" --out "$d/cut" > "$d/stdout" 2> "$d/stderr"
    code=$?
    [ "$code" -eq 2 ] && grep -qF "$d/cut.kys" "$d/stderr" && ok "resume_refuses_a_truncated_snapshot" ||
        no "resume_refuses_a_truncated_snapshot" "exit $code: $(cat "$d/stderr")"
    "$SIM" "$SCENES/pile.json" --resume "$d/snap.kys" --out "$d/other" > "$d/stdout" 2> "$d/stderr"
    code=$?
    [ "$code" -eq 2 ] && grep -q "another scene" "$d/stderr" && ok "resume_refuses_another_scene" ||
        no "resume_refuses_another_scene" "exit $code: $(cat "$d/stderr")"
else
    no "resume_refuses_a_truncated_snapshot" "no snapshot was saved"
fi

# ---- progress bar --------------------------------------------------------------------------------

"$SIM" "$SCENES/pile.json" --steps 120 --format none --out "$T/quiet" > "$T/stdout" 2> "$T/stderr"
if [ ! -s "$T/stderr" ]; then
    ok "no_progress_bar_when_stderr_is_not_a_terminal"
else
    no "no_progress_bar_when_stderr_is_not_a_terminal" "stderr: $(head -c 200 "$T/stderr")"
fi
if command -v script > /dev/null 2>&1 && script -qec true /dev/null > /dev/null 2>&1; then
    script -qec "$SIM $SCENES/pile.json --steps 120 --format none --out $T/tty" /dev/null \
        > "$T/tty.txt" 2>&1 < /dev/null
    grep -q "120/120 steps .*steps/s  ETA" "$T/tty.txt" && ok "progress_bar_on_a_terminal" ||
        no "progress_bar_on_a_terminal" "$(head -c 300 "$T/tty.txt")"
else
    skipped "progress_bar_on_a_terminal" "no util-linux script(1) to fake a terminal (apt-get install -y util-linux)"
fi

# ---- plots ---------------------------------------------------------------------------------------

# Command lines: an unknown option is named as unknown, --help exits 0 (kyu-sim and the bench).
"$SIM" "$SCENES/bounce.json" --bogus > "$T/stdout" 2> "$T/stderr"
[ $? -eq 2 ] && grep -q "unknown option --bogus" "$T/stderr" && ok "sim_names_an_unknown_option" ||
    no "sim_names_an_unknown_option" "$(cat "$T/stderr")"
BENCH="$BUILD/tools/bench"
if [ -x "$BENCH" ]; then
    "$BENCH" --help > "$T/stdout" 2> "$T/stderr" && grep -q "^usage: bench" "$T/stdout" &&
        ok "bench_help_exits_0" || no "bench_help_exits_0" "$(cat "$T/stderr")"
    "$BENCH" pile --bogus > "$T/stdout" 2> "$T/stderr"
    [ $? -eq 2 ] && grep -q "unknown option: --bogus" "$T/stderr" && ok "bench_names_a_bad_argument" ||
        no "bench_names_a_bad_argument" "$(cat "$T/stderr")"
fi

# The marble run, in full: its marbles roll down all three ramps to the tray (x past 3 m at
# y = -0.042), at 5/7 g (sin - rr cos) on the first ramp.
"$SIM" "$SCENES/marble-run.json" --format csv --out "$T/marbles" --quiet
down=$(awk -F, '$1 == 1920 && $4 > 3 && $5 < -0.04 { n++ } END { print n + 0 }' "$T/marbles/frames.csv")
accel=$(awk -F, '$3 == 6 && ($1 == 48 || $1 == 144) { v = sqrt($7 * $7 + $8 * $8); if (t) printf "%.4f", (v - pv) / ($2 - t); pv = v; t = $2 }' "$T/marbles/frames.csv")
if [ "$down" = 6 ] && awk -v a="$accel" 'BEGIN { exit !(a > 1.191 && a < 1.215) }'; then
    ok "marble_run_rolls_to_the_tray (6 of 6, a = $accel m/s^2 on the first ramp, 1.2030 expected)"
else
    no "marble_run_rolls_to_the_tray" "$down of 6 on the tray, a = $accel m/s^2 (1.2030 expected)"
fi

if command -v gnuplot > /dev/null 2>&1; then
    if sh "$PLOT" "$T/bounce" --out "$T/plots" --id 2 > "$T/stdout" 2> "$T/stderr" &&
        for p in energy heights trajectory; do
            [ "$(head -c 4 "$T/plots/$p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || exit 1
        done; then
        ok "plot_makes_three_pngs"
    else
        no "plot_makes_three_pngs" "$(cat "$T/stderr")"
    fi
    "$SIM" "$SCENES/bounce.json" --steps 20 --format jsonl --out "$T/jsonl-only" --quiet
    sh "$PLOT" "$T/jsonl-only" > "$T/stdout" 2> "$T/stderr" && [ -s "$T/jsonl-only/heights.png" ] &&
        ok "plot_reads_jsonl" || no "plot_reads_jsonl" "$(cat "$T/stderr")"
    sh "$PLOT" "$T/nowhere" > "$T/stdout" 2> "$T/stderr"
    [ $? -eq 2 ] && grep -q "not a directory" "$T/stderr" && ok "plot_bad_directory" ||
        no "plot_bad_directory" "$(cat "$T/stderr")"
else
    skipped "plots" "gnuplot is not installed (apt-get install -y gnuplot-nox)"
fi

finish
