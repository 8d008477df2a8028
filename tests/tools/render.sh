#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu-render: frames are written, spheres land where the camera puts them (pixel colours), sleeping
# bodies are darker, bad recordings are refused with exit 2 and a message naming file and field, the
# demo, a scene and a GIF work. Run by `make test` with BUILD set; binaries in $BUILD/tools/.
set -u
BUILD=${BUILD:-build}
R="$BUILD/tools/kyu-render"
SIM="$BUILD/tools/kyu-sim"
. tests/tools/lib.sh

if [ ! -x "$R" ]; then
    skipped kyu-render "not built (it needs cairo and cJSON: apt-get install -y libcairo2-dev libcjson-dev)"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# pixel FILE X Y -> "R G B" (kyu-render --probe reads the PNG back with cairo)
pixel() { "$R" --probe "$1" --at "$2,$3" | sed -n 's/^pixel [0-9,]* rgb //p'; }
coverage() { "$R" --probe "$1" | sed -n 's/.* nonbackground //p'; }

# One sphere (r = 1) at the origin seen from z = 10 through a 40 degree lens: it covers the centre
# of a 320x240 picture; at step 10 it has moved to x = 2 (screen x = 160 + 120/tan(20deg) * 2/10).
cat > "$T/one.jsonl" <<'EOF'
{"kyu_recording":1,"scene":"","dt":0.0166667,"every":10}
{"step":0,"t":0,"id":0,"p":[0,0,0],"v":[0,0,0],"r":1,"awake":true}
{"step":10,"t":0.166667,"id":0,"p":[2,0,0],"v":[0,0,0],"r":1,"awake":true}
{"step":20,"t":0.333333,"id":0,"p":[0,0,0],"v":[0,0,0],"r":1,"awake":false}
EOF
CAM="--camera 0,0,10:0,0,0:40 --size 320x240 --no-floor --no-shadows"
if "$R" "$T/one.jsonl" $CAM --out "$T/one" >"$T/out" 2>&1 &&
    [ -f "$T/one/frame_0000.png" ] && [ -f "$T/one/frame_0002.png" ] && [ ! -f "$T/one/frame_0003.png" ]; then
    ok "a recording of 3 frames gives frame_0000..0002.png"
else
    no "recording frames" "$(cat "$T/out")"
fi

# Body 0's colour is orange (hue 0.08): red well above blue; the sky behind is bluish.
set -- $(pixel "$T/one/frame_0000.png" 160 120)
if [ $# -eq 3 ] && [ "$1" -gt $(($3 + 60)) ]; then ok "the sphere is drawn where it projects (centre pixel $1 $2 $3)"; else no "sphere at the centre" "pixel '$*'"; fi
set -- $(pixel "$T/one/frame_0000.png" 5 5)
if [ $# -eq 3 ] && [ "$3" -ge "$1" ]; then ok "the background is left where nothing projects ($1 $2 $3)"; else no "background corner" "pixel '$*'"; fi
set -- $(pixel "$T/one/frame_0001.png" 226 120)
a=$*
set -- $(pixel "$T/one/frame_0001.png" 160 120)
if [ -n "$a" ] && [ "${a%% *}" -gt $((${a##* } + 60)) ] && [ "$3" -ge "$1" ]; then
    ok "a moved sphere is drawn at its new place (x = 2 m -> pixel 226), not the old"
else
    no "moved sphere" "at 226: '$a', at 160: '$*'"
fi
set -- $(pixel "$T/one/frame_0000.png" 160 120)
awake=$(($1 + $2 + $3))
set -- $(pixel "$T/one/frame_0002.png" 160 120)
asleep=$(($1 + $2 + $3))
if [ "$asleep" -lt $((awake / 2)) ]; then ok "a sleeping body is drawn dark ($asleep < $awake / 2)"; else no "sleeping colour" "$asleep vs $awake"; fi

# Bad recordings: exit 2 and a message that names the file (and the line and field).
bad() { # name, expected words, file content
    printf '%s\n' "$3" > "$T/bad.jsonl"
    "$R" "$T/bad.jsonl" --out "$T/badout" >"$T/out" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "bad.jsonl" "$T/out" && grep -q -- "$2" "$T/out"; then
        ok "bad recording refused: $1"
    else
        no "bad recording: $1" "exit $rc, message: $(cat "$T/out")"
    fi
}
H='{"kyu_recording":1,"scene":"x.json","dt":0.01,"every":1}'
bad "radius missing" ':2: "r" is missing' "$H
{\"step\":0,\"t\":0,\"id\":0,\"p\":[0,0,0],\"v\":[0,0,0],\"awake\":true}"
bad "not JSON" ":3: not a JSON object" "$H
{\"step\":0,\"t\":0,\"id\":0,\"p\":[0,0,0],\"v\":[0,0,0],\"r\":1,\"awake\":true}
{\"step\":1,"
bad "steps going backwards" "steps must not go backwards" "$H
{\"step\":5,\"t\":0,\"id\":0,\"p\":[0,0,0],\"v\":[0,0,0],\"r\":1,\"awake\":true}
{\"step\":4,\"t\":0,\"id\":0,\"p\":[0,0,0],\"v\":[0,0,0],\"r\":1,\"awake\":true}"
bad "p with 2 numbers" '"p" must be an array of 3 numbers' "$H
{\"step\":0,\"t\":0,\"id\":0,\"p\":[0,0],\"v\":[0,0,0],\"r\":1,\"awake\":true}"
bad "wrong version" "knows version 1" '{"kyu_recording":2,"scene":"x.json","dt":0.01,"every":1}'
bad "header only" "no body lines" "$H"
"$R" "$T/missing.jsonl" --out "$T/o2" >"$T/out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "missing.jsonl" "$T/out"; then ok "a missing input exits 2 naming it"; else no "missing input" "exit $rc: $(cat "$T/out")"; fi
"$R" --demo --size 10x10 >"$T/out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q -- "--size" "$T/out"; then ok "a bad option exits 2 naming it"; else no "bad option" "exit $rc: $(cat "$T/out")"; fi

# The demo world (colliders through kyu_world_draw): frames with a plausible amount of picture.
if "$R" --demo --frames 3 --every 20 --size 320x240 --out "$T/demo" >"$T/out" 2>&1 && [ -f "$T/demo/frame_0002.png" ]; then
    c=$(coverage "$T/demo/frame_0002.png")
    if awk "BEGIN { exit !($c > 0.2) }"; then ok "the demo renders (non-background share $c)"; else no "demo picture" "non-background share $c"; fi
else
    no "demo" "$(cat "$T/out")"
fi

# A GIF of the demo frames, when ffmpeg or ImageMagick is there.
if command -v ffmpeg >/dev/null 2>&1 || command -v convert >/dev/null 2>&1; then
    if "$R" --demo --frames 4 --every 10 --size 160x120 --out "$T/gif" --gif "$T/demo.gif" >"$T/out" 2>&1 &&
        [ "$(head -c 4 "$T/demo.gif" 2>/dev/null)" = "GIF8" ]; then
        ok "--gif writes an animated GIF"
    else
        no "gif" "$(cat "$T/out")"
    fi
else
    skipped "gif" "neither ffmpeg nor ImageMagick installed (apt-get install -y ffmpeg)"
fi

# A scene file and a kyu-sim recording of it (when the scene loader and kyu-sim are built).
if "$R" --help | grep -q "scene files: supported" && [ -f samples/scenes/bounce.json ]; then
    if "$R" samples/scenes/bounce.json --frames 2 --every 5 --size 160x120 --out "$T/scene" >"$T/out" 2>&1 &&
        [ -f "$T/scene/frame_0001.png" ]; then ok "a scene file renders"; else no "scene" "$(cat "$T/out")"; fi
    printf '{"world": ' > "$T/bad.json"
    "$R" "$T/bad.json" --out "$T/o3" >"$T/out" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "bad.json" "$T/out"; then ok "a bad scene exits 2 naming it"; else no "bad scene" "exit $rc: $(cat "$T/out")"; fi
fi
if [ -x "$SIM" ] && [ -f samples/scenes/bounce.json ]; then
    if "$SIM" samples/scenes/bounce.json --steps 60 --format jsonl --out "$T/sim" >/dev/null 2>&1 &&
        "$R" "$T/sim/frames.jsonl" --frames 3 --size 160x120 --out "$T/simframes" >"$T/out" 2>&1 &&
        [ -f "$T/simframes/frame_0002.png" ]; then
        ok "a kyu-sim recording renders"
    else
        no "kyu-sim recording" "$(cat "$T/out")"
    fi
else
    skipped "kyu-sim recording" "kyu-sim not built (apt-get install -y libcjson-dev)"
fi
finish
