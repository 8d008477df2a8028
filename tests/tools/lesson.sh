#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu-lesson: the page has every stage of every scenario, the engine's numbers (the same ones the
# tool prints), the lesson's arithmetic agrees with the engine, the page is self-contained, and in
# headless Chromium the script shows the stage named in the URL and the screenshot is not blank.
# Run by `make test` with BUILD set; binaries in $BUILD/tools/.
set -u
BUILD=${BUILD:-build}
L="$BUILD/tools/kyu-lesson"
R="$BUILD/tools/kyu-render"
. tests/tools/lib.sh
if [ ! -x "$L" ]; then
    no kyu-lesson "$L is not built"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P="$T/lesson.html"

if "$L" --out "$P" >"$T/out" 2>"$T/err" && [ -s "$P" ]; then ok "kyu-lesson writes the page"; else no "kyu-lesson" "$(cat "$T/err")"; finish; fi

stages="Sweeps and swept boxes|Grid cells and candidate pairs|Time of impact from P, Q, R|Contact point and normal|Velocity split and reflection|Escape of overlaps, kept and new pairs|Islands and sleep"
n=$(grep -c '<article class="stage"' "$P")
missing=""
IFS='|'
for s in $stages; do
    c=$(grep -c "<h2>[0-9]\. $s</h2>" "$P")
    [ "$c" -eq 3 ] || missing="$missing [$s: $c]"
done
unset IFS
if [ "$n" -eq 21 ] && [ -z "$missing" ]; then ok "3 scenarios x 7 stages, every stage title present"; else no "stages" "$n panels;$missing"; fi

# The numbers the tool prints (read from the engine) are the ones on the page.
for sc in 1 2 3; do
    line=$(grep "^scenario $sc:" "$T/out")
    toi=$(echo "$line" | sed -n 's/.*toi engine \([0-9.]*\).*/\1/p')
    if [ -n "$toi" ] && grep -q "id=\"s$sc-toi-engine\">$toi<" "$P"; then
        ok "scenario $sc: the engine's time of impact $toi is on the page"
    else
        no "scenario $sc toi" "'$line'"
    fi
    case "$line" in
    *"(agree)"*) ok "scenario $sc: the lesson's time of impact agrees with the engine's" ;;
    *) no "scenario $sc agreement" "$line" ;;
    esac
done
if grep -q 'id="s1-refl-verdict">agree' "$P" && grep -q 'id="s2-refl-verdict">agree' "$P"; then
    ok "the lesson's reflection with restitution gives the engine's velocities (scenarios 1, 2)"
else
    no "reflection" "$(grep -o 'id="s[12]-refl-verdict">[a-zA-Z]*' "$P")"
fi
if grep -q 'class="verdict differ"' "$P"; then
    no "verdicts" "$(grep -o 'id="s[0-9]-[a-z]*-verdict">DIFFER[^<]*' "$P" | head -3)"
else
    ok "no verdict on the page says DIFFER"
fi
if grep -qiE '(src|href)="(https?:|//|[a-z./]+\.(js|css|png))' "$P" || grep -q "<link" "$P"; then
    no "self-contained" "$(grep -oiE '(src|href)="[^"]*"' "$P" | head -3)"
else
    ok "the page is self-contained (no external files or URLs)"
fi
"$L" --scenario 9 --out "$T/x.html" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "scenario" "$T/err"; then ok "--scenario 9 exits 2 with a message"; else no "bad scenario" "exit $rc"; fi
"$L" --scenario 2 --out "$T/two.html" >/dev/null 2>&1
if [ "$(grep -c '<section class="scenario"' "$T/two.html" 2>/dev/null)" = 1 ]; then ok "--scenario 2 writes one scenario"; else no "--scenario" "not one section"; fi

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
    skipped "chromium" "not installed (apt-get install -y chromium)"
    finish
fi
chrome() { # URL-hash, extra flags...
    hash=$1
    shift
    prof=$(mktemp -d)
    timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
        --virtual-time-budget=3000 "$@" "file://$P#$hash" 2>/dev/null
    rm -rf "$prof"
}
chrome "scenario=1&stage=3" --dump-dom > "$T/dom1.html"
toi=$(sed -n 's/^scenario 1:.*toi engine \([0-9.]*\).*/\1/p' "$T/out")
if grep -q 'id="pos">Scenario 1, stage 3 of 7: 3. Time of impact from P, Q, R<' "$T/dom1.html" &&
    grep -q 'class="stage on" id="s1-stage3"' "$T/dom1.html" && grep -q ">$toi<" "$T/dom1.html"; then
    ok "chromium: #scenario=1&stage=3 shows the time-of-impact panel with the engine's $toi"
else
    no "chromium stage 3" "$(grep -o 'id="pos">[^<]*' "$T/dom1.html")"
fi
chrome "scenario=3&stage=9" --dump-dom > "$T/dom2.html"
if grep -q 'id="pos">Scenario 3, stage 7 of 7' "$T/dom2.html" && grep -q 'id="next" disabled' "$T/dom2.html" &&
    grep -q 'class="stage on" id="s3-stage7"' "$T/dom2.html"; then
    ok "chromium: the last stage is clamped to 7 and Next is disabled there"
else
    no "chromium last stage" "$(grep -o 'id="pos">[^<]*' "$T/dom2.html")"
fi
chrome "scenario=2&stage=5" --screenshot="$T/shot.png" --window-size=1000,900 >/dev/null
if [ ! -s "$T/shot.png" ]; then
    no "chromium screenshot" "no screenshot written"
elif [ ! -x "$R" ]; then
    skipped "screenshot pixels" "kyu-render (the PNG probe) is not built (apt-get install -y libcairo2-dev libcjson-dev libexpat1-dev)"
else
    c=$("$R" --probe "$T/shot.png" | sed -n 's/.* nonbackground //p')
    head=$("$R" --probe "$T/shot.png" --at 500,10 | sed -n 's/^pixel [0-9,]* rgb //p')
    set -- $head
    # The header bar is dark navy (#1f2a44); a blank page would be white.
    if [ $# -eq 3 ] && [ "$1" -lt 60 ] && [ "$3" -gt "$1" ] && awk "BEGIN { exit !($c > 0.05) }"; then
        ok "chromium: the screenshot shows the page (header $head, non-background share $c)"
    else
        no "screenshot pixels" "header '$head', non-background share '$c'"
    fi
fi
finish
