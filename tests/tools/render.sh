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
    skipped kyu-render "not built (it needs cairo, cJSON and expat: apt-get install -y libcairo2-dev libcjson-dev libexpat1-dev)"
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

# kyu-sim's other records draw as its JSONL does (issue 35): the same frames, pixel for pixel, the
# scene's colliders found through summary.json. CSV carries sleep as JSONL does; XYZ and VTK do not
# (their bodies are drawn awake), so they are compared on the frames where every body is awake.
if [ -x "$SIM" ] && "$SIM" samples/scenes/bounce.json --steps 480 --every 80 --format jsonl,csv,xyz,vtk \
    --out "$T/all" --quiet >"$T/out" 2>&1; then
    for f in frames.jsonl frames.csv frames.xyz frames.pvd frames/frame_000160.vtp; do
        d="$T/from-$(echo "$f" | tr '/.' '--')"
        if ! "$R" "$T/all/$f" --size 160x120 --out "$d" >"$T/out" 2>&1 || grep -q "not drawn" "$T/out"; then
            no "render $f" "$(cat "$T/out")"
        fi
    done
    # awake_steps: the frames (by index) in which every body is awake.
    awake=$(awk -F, 'NR > 1 { if (!($1 in seen)) { seen[$1] = n++ } if ($11 == 0) asleep[$1] = 1 }
        END { for (s in seen) if (!(s in asleep)) printf "%d ", seen[s] }' "$T/all/frames.csv")
    same=0 differ=""
    for i in 0 1 2 3 4 5 6; do
        ref="$T/from-frames-jsonl/frame_000$i.png"
        [ -f "$ref" ] || differ="$differ jsonl:$i"
        cmp -s "$ref" "$T/from-frames-csv/frame_000$i.png" && same=$((same + 1)) || differ="$differ csv:$i"
        case " $awake" in *" $i "*)
            for k in xyz pvd; do
                cmp -s "$ref" "$T/from-frames-$k/frame_000$i.png" && same=$((same + 1)) || differ="$differ $k:$i"
            done ;;
        esac
    done
    asleep_frames=$((7 - $(echo $awake | wc -w)))
    if [ -z "$differ" ] && [ "$same" -ge 13 ] && [ "$asleep_frames" -ge 1 ]; then
        ok "kyu-sim's csv, xyz and pvd draw as its jsonl ($same frames equal, $asleep_frames with sleepers from the csv)"
    else
        no "csv, xyz and pvd draw as jsonl" "differ:$differ ($same equal, awake frames: $awake)"
    fi
    # One .vtp (in DIR/frames, summary.json above it) draws as the CSV of that frame alone.
    mkdir -p "$T/one"
    cp "$T/all/summary.json" "$T/one/"
    awk -F, 'NR == 1 || $1 == 160' "$T/all/frames.csv" > "$T/one/frames.csv"
    if "$R" "$T/one/frames.csv" --size 160x120 --out "$T/from-one" >"$T/out" 2>&1 &&
        cmp -s "$T/from-one/frame_0000.png" "$T/from-frames-frame_000160-vtp/frame_0000.png"; then
        ok "one .vtp draws as the csv of its frame"
    else
        no "one .vtp" "$(cat "$T/out")"
    fi

    # Bad records: exit 2 and a message naming the file and what is wrong.
    refused() { # name, file, expected words
        "$R" "$2" --out "$T/badrec" >"$T/out" 2>&1
        rc=$?
        if [ "$rc" -eq 2 ] && grep -qF "$2" "$T/out" && grep -q -- "$3" "$T/out"; then
            ok "bad record refused: $1"
        else
            no "bad record: $1" "exit $rc: $(cat "$T/out")"
        fi
    }
    sed '1s/,r,/,radius,/' "$T/all/frames.csv" > "$T/nor.csv"
    refused "csv without r" "$T/nor.csv" ':1: the header has no column "r"'
    sed '3s/^\([0-9]*\),\([^,]*\),\([0-9]*\),[^,]*,/\1,\2,\3,x,/' "$T/all/frames.csv" > "$T/nan.csv"
    refused "csv with a word for x" "$T/nan.csv" ':3: "x" is not a finite number'
    sed '4s/ [^ ]*$//' "$T/all/frames.xyz" > "$T/short.xyz"
    refused "xyz row short of a column" "$T/short.xyz" ':4: 22 columns, Properties has 23'
    head -n 5 "$T/all/frames.xyz" > "$T/cut.xyz"
    refused "xyz frame cut short" "$T/cut.xyz" "the frame has 3 of its 4 rows"
    vtp="$T/all/frames/frame_000080.vtp"
    head -c $(($(wc -c < "$vtp") - 80)) "$vtp" > "$T/cut.vtp"
    refused "vtp cut short" "$T/cut.vtp" 'the file ends inside array'
    sed 's/frame_000080.vtp/frame_999999.vtp/' "$T/all/frames.pvd" > "$T/all/missing.pvd"
    refused "pvd naming a missing file" "$T/all/missing.pvd" "frame_999999.vtp: cannot read"
    sed 's/format="appended"/format="ascii"/' "$vtp" > "$T/ascii.vtp"
    refused "vtp not in appended data" "$T/ascii.vtp" 'format="ascii"'
else
    skipped "kyu-sim records" "kyu-sim not built (apt-get install -y libcjson-dev)"
fi
finish
