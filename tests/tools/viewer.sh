#!/bin/sh
# SPDX-License-Identifier: MIT
# The viewer, headless: under Xvfb (Mesa's software OpenGL) it runs a scene to a given frame, prints
# where its largest spheres are on screen and in which colour, and holds the picture; a screenshot of
# the X root window (ImageMagick's import) must show those colours there. The lights are grey and
# have no specular term, so a lit sphere pixel is its colour times a factor: compared by the ratios
# of its channels. Run by `make test` (BUILD in the environment); skips without Xvfb or ImageMagick.
set -u
BUILD=${BUILD:-build}
VIEWER=${VIEWER:-$BUILD/samples/viewer}
. tests/tools/lib.sh

# Outside X: start a private Xvfb (xvfb-run -a picks a free display) and run this script in it.
if [ -z "${KYU_VIEWER_INNER:-}" ]; then
    for tool in xvfb-run Xvfb import convert; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            skipped viewer "$tool not found (apt-get install -y xvfb xauth imagemagick)"
            finish
        fi
    done
    if [ ! -x "$VIEWER" ]; then
        skipped viewer "$VIEWER not built (make viewer; apt-get install -y libsdl2-dev libgl1-mesa-dri)"
        finish
    fi
    KYU_VIEWER_INNER=1 exec xvfb-run -a -s "-screen 0 1024x768x24" sh "$0"
fi

# Mesa and SDL keep a few allocations to the end: only kyu's errors matter to this test.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export ASAN_OPTIONS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs the viewer until its report, takes the screenshot, ends the viewer. $1 name, then options.
# Sets shot (the picture) and out (the viewer's report).
shoot() {
    name=$1
    shift
    out="$tmp/$name.out"
    shot="$tmp/$name.png"
    "$VIEWER" --dt 0.0166667 --frames 100000 "$@" >"$out" 2>&1 &
    pid=$!
    waited=0
    while ! grep -q "^viewer: end of report" "$out" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null || [ "$waited" -ge 1200 ]; then
            kill "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    sleep 0.3 # let the X server show the swapped frame
    import -window root "$shot" 2>"$tmp/import.err"
    status=$?
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return $status
}

# The pixels of $shot at the points given as "x y" lines on stdin: prints "r g b" lines (0..255).
pixels_at() {
    fmt=""
    while read -r x y; do
        fmt="$fmt%[fx:int(255*p{$x,$y}.r+0.5)] %[fx:int(255*p{$x,$y}.g+0.5)] %[fx:int(255*p{$x,$y}.b+0.5)]\n"
    done
    [ -n "$fmt" ] && convert "$shot" -format "$fmt" info:
}

# For each reported sphere: five points (the centre and halfway to its rim on four sides, so a
# debug line across the centre cannot hide it); a sphere is seen when 3 of its 5 pixels have its
# colour's channel ratios. Prints "seen reported".
spheres_seen() {
    grep '^sphere ' "$out" | while read -r _ x y r cr cg cb; do
        h=$(awk -v r="$r" 'BEGIN { printf "%d", r / 2 }')
        printf '%s %s\n%s %s\n%s %s\n%s %s\n%s %s\n' "$x" "$y" $((x - h)) "$y" $((x + h)) "$y" "$x" $((y - h)) "$x" $((y + h)) |
            pixels_at | awk -v cr="$cr" -v cg="$cg" -v cb="$cb" '
                function max3(a, b, c) { return a > b ? (a > c ? a : c) : (b > c ? b : c) }
                { m = max3($1, $2, $3); k = max3(cr, cg, cb)
                  if (m >= 30 && (($1 / m - cr / k) ^ 2) < 0.01 && (($2 / m - cg / k) ^ 2) < 0.01 && (($3 / m - cb / k) ^ 2) < 0.01) n++ }
                END { print (n >= 3) ? 1 : 0 }'
    done | awk '{ seen += $1; all++ } END { printf "%d %d\n", seen, all }'
}

# The scene is on screen: enough of the reported spheres are seen, and the picture is not blank.
check_scene() {
    test_name=$1
    shift
    if ! shoot "$@"; then
        no "$test_name" "no report from the viewer: $(tail -n 3 "$out" 2>/dev/null | tr '\n' ' ')"
        return
    fi
    set -- $(spheres_seen)
    seen=${1:-0} all=${2:-0}
    colours=$(convert "$shot" -format %k info: 2>/dev/null || echo 0)
    if [ "$all" -lt 3 ]; then
        no "$test_name" "the viewer reported $all spheres on screen (want >= 3)"
    elif [ $((seen * 4)) -lt $((all * 3)) ]; then
        no "$test_name" "only $seen of $all spheres have their colour in the screenshot"
    elif [ "$colours" -lt 200 ]; then
        no "$test_name" "the screenshot has $colours colours: blank?"
    else
        ok "$test_name ($seen of $all spheres seen, $colours colours)"
    fi
}

# Pixels of exactly colour $2 (#RRGGBB) in $shot: the debug layers' lines are drawn unlit.
count_colour() {
    convert "$shot" -format %c histogram:info:- | awk -v c="$1" 'index($0, c) { sub(":", "", $1); n += $1 } END { print n + 0 }'
}

# Every layer on: the contact points (red) and velocity arrows (yellow) of draw.c's colours show.
check_layers() {
    test_name=$1
    shift
    if ! shoot "$@"; then
        no "$test_name" "no report from the viewer: $(tail -n 3 "$out" 2>/dev/null | tr '\n' ' ')"
        return
    fi
    red=$(count_colour "#FF3333") yellow=$(count_colour "#FFFF33")
    if [ "$red" -lt 20 ] || [ "$yellow" -lt 20 ]; then
        no "$test_name" "contact red $red px, velocity yellow $yellow px (want >= 20 each)"
    else
        ok "$test_name (contact red $red px, velocity yellow $yellow px)"
    fi
}

# A picture of nothing must fail the same checks: the report's spheres looked up in a black image.
check_blank_fails() {
    test_name=$1
    if ! shoot blank --scene platform --report-frame 30; then
        no "$test_name" "no report from the viewer"
        return
    fi
    convert "$shot" -fill black -colorize 100 "$shot"
    set -- $(spheres_seen)
    if [ "${2:-0}" -ge 3 ] && [ "${1:-0}" -eq 0 ]; then
        ok "$test_name"
    else
        no "$test_name" "spheres seen in a black picture: ${1:-?} of ${2:-?}"
    fi
}

check_scene "viewer_cannon_shows_its_balls" cannon --scene cannon --report-frame 150 --layers shapes,sleep,islands
check_layers "viewer_cannon_draws_contacts_and_velocities_on_top" layers --scene cannon --report-frame 150 \
    --layers shapes,sleep,islands,aabbs,swept,grid,contacts,impacts,pairs,velocities,text
check_scene "viewer_bowl_shows_the_pour" bowl --scene bowl --report-frame 150
check_scene "viewer_pile_of_2000_renders" pile --scene pile --report-frame 40
check_blank_fails "viewer_check_fails_on_a_black_picture"
if [ "$fail" -gt 0 ] && [ -n "${KYU_VIEWER_KEEP:-}" ]; then
    cp "$tmp"/*.png "$KYU_VIEWER_KEEP"/ 2>/dev/null
fi
finish
