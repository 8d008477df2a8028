#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu-sim's frames for analysis tools (issue 23): --format vtk (.vtp files and a .pvd collection,
# read back with VTK's own XML reader, Debian python3-vtk9) and --format xyz (extended XYZ, read
# with a strict reader of OVITO's documented grammar), compared value by value with the CSV frames
# of the same run. Prints "ok   name" / "FAIL name: why" and "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
SIM="$BUILD/tools/kyu-sim"
PY=/usr/bin/python3 # Debian's python, where python3-numpy and python3-vtk9 live
SCENES=samples/scenes
. tests/tools/lib.sh

if ! pkg-config --exists libcjson 2>/dev/null; then
    skipped "frames" "libcjson is not installed (apt-get install -y libcjson-dev)"
    finish
fi
if [ ! -x "$SIM" ]; then
    no "frames" "$SIM was not built (make $SIM)"
    finish
fi
have_numpy=no have_vtk=no
"$PY" -c "import numpy" 2>/dev/null && have_numpy=yes
"$PY" -c "import vtk" 2>/dev/null && have_vtk=yes

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

# check KIND NAME DIR: the KIND frames (vtk, xyz, or the contacts' network) of the run in DIR agree
# with its CSV frames.
check() {
    if [ "$have_numpy" = no ]; then
        skipped "$2" "Debian's python3-numpy is not installed (apt-get install -y python3-numpy)"
    elif [ "$1" != xyz ] && [ "$have_vtk" = no ]; then
        skipped "$2" "Debian's python3-vtk9 is not installed (apt-get install -y python3-vtk9)"
    elif msg=$("$PY" tests/tools/check_frames.py "$1" "$3" 2>&1); then
        ok "$2 ($msg)"
    else
        no "$2" "$msg"
    fi
}

# run NAME SCENE ARGS...: kyu-sim with CSV, VTK and XYZ frames into $T/NAME.
run() {
    name=$1 scene=$2
    shift 2
    if ! "$SIM" "$scene" --format csv,vtk,xyz --out "$T/$name" --quiet "$@" > "$T/stdout" 2> "$T/stderr"; then
        no "${name}_runs" "exit $?: $(head -c 300 "$T/stderr")"
        return 1
    fi
}

# Four balls bouncing: the same bodies in every frame.
if run bounce "$SCENES/bounce.json" --steps 120 --every 12; then
    check vtk vtk_frames_of_bounce_equal_the_csv "$T/bounce"
    check xyz xyz_frames_of_bounce_equal_the_csv_with_their_box "$T/bounce"
    n=$(ls "$T/bounce/frames" | grep -c '^frame_[0-9]\{6\}\.vtp$')
    [ "$n" = 11 ] && ok "vtk_one_file_a_frame" || no "vtk_one_file_a_frame" "$n .vtp files, want 11"
fi
# A pour: the emitter adds bodies, so frames differ in size (the first has none).
if run bowl "$SCENES/pour-bowl.json" --steps 150 --every 30; then
    check vtk vtk_frames_of_a_pour_equal_the_csv "$T/bowl"
    check xyz xyz_frames_of_a_pour_equal_the_csv_with_their_box "$T/bowl"
fi
# Only the bodies the scene asks to record.
cat > "$T/ids.json" <<'EOF'
{"colliders": [{"type": "plane"}],
 "bodies": [{"position": [0, 1, 0]}, {"position": [2, 2, 0]}, {"position": [4, 3, 0]}],
 "run": {"steps": 30, "record": {"every": 10, "ids": [3, 1]}}}
EOF
if run ids "$T/ids.json"; then
    check vtk vtk_frames_hold_only_the_record_ids "$T/ids"
    check xyz xyz_frames_hold_only_the_record_ids "$T/ids"
    ids=$(sed -n 3,4p "$T/ids/frames.xyz" | awk '{ print $9 }' | tr '\n' ' ') # the id column
    [ "$ids" = "1 3 " ] && ok "xyz_ids_are_the_record_ids" || no "xyz_ids_are_the_record_ids" "ids $ids"
fi

# The contact network of a bed that settles and sleeps: lines between the CSV's centres, and at
# rest the floor and the walls hold the bed's weight.
if "$SIM" "$SCENES/bed.json" --format csv,contacts --every 60 --out "$T/bed" --quiet > "$T/stdout" 2> "$T/stderr"; then
    check contacts contacts_of_a_settled_bed_join_the_centres_and_hold_its_weight "$T/bed"
else
    no "bed_runs" "exit $?: $(head -c 300 "$T/stderr")"
fi

# The checker can fail: one changed digit in a copy of the XYZ file is found.
if [ -f "$T/bounce/frames.xyz" ] && [ "$have_numpy" = yes ]; then
    mkdir -p "$T/changed"
    cp "$T/bounce/frames.csv" "$T/bounce/series.csv" "$T/changed/"
    sed '4s/^B 1 /B 1.5 /' "$T/bounce/frames.xyz" > "$T/changed/frames.xyz"
    if cmp -s "$T/bounce/frames.xyz" "$T/changed/frames.xyz"; then
        no "xyz_check_sees_a_changed_value" "the sed changed nothing: a weak check"
    elif "$PY" tests/tools/check_frames.py xyz "$T/changed" > "$T/stdout" 2>&1; then
        no "xyz_check_sees_a_changed_value" "a moved body passed: $(cat "$T/stdout")"
    else
        ok "xyz_check_sees_a_changed_value"
    fi
    printf '3\nProperties=species:S:1:pos:R:3 Time=0\nB 0 0 0\nB 1 1\n' > "$T/changed/frames.xyz"
    if "$PY" tests/tools/check_frames.py xyz "$T/changed" > "$T/stdout" 2>&1; then
        no "xyz_reader_is_strict" "a short row and a missing row passed"
    else
        ok "xyz_reader_is_strict"
    fi
fi

# Bad formats and an output that cannot be written: exit 2 and a message.
for f in "vtk,xml" "xyz," "csv,,vtk"; do
    "$SIM" "$SCENES/bounce.json" --format "$f" --out "$T/bad" > "$T/stdout" 2> "$T/stderr"
    code=$?
    [ "$code" -eq 2 ] && grep -q "bad value for --format" "$T/stderr" && ok "bad_format $f" ||
        no "bad_format $f" "exit $code: $(cat "$T/stderr")"
done
mkdir -p "$T/blocked" && touch "$T/blocked/frames"
"$SIM" "$SCENES/bounce.json" --steps 2 --format vtk --out "$T/blocked" > "$T/stdout" 2> "$T/stderr"
code=$?
[ "$code" -eq 2 ] && grep -qF "$T/blocked/frames" "$T/stderr" && ok "vtk_directory_that_cannot_be_made" ||
    no "vtk_directory_that_cannot_be_made" "exit $code: $(cat "$T/stderr")"

finish
