#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu in the browser (make wasm): the page is one self-contained file; in headless Chromium it runs
# the billiards break and the lesson's collision STEPS steps and writes their state hashes, which
# must be the native build's (build/web/kyu-web-hash: the same C on x86-64), checkpoint by
# checkpoint; the live lesson's stage panel shows the engine's impact record, the same record as
# native stepping gives, with no verdict saying DIFFER; a screenshot shows the page (header, cloth,
# shaded balls); and the README's browser example prints the native hash.
# Run by `make test` with BUILD set. Without emscripten it reports a skip.
set -u
BUILD=${BUILD:-build}
W="$BUILD/wasm"
H="$BUILD/web/kyu-web-hash"
STEPS=1200
. tests/tools/lib.sh
if [ ! -s "$W/index.html" ]; then
    if command -v "${EMCC:-emcc}" >/dev/null 2>&1; then no "make wasm" "$W/index.html is not built"; else skipped "wasm" "emscripten is not installed (apt-get install -y emscripten)"; fi
    finish
fi
if [ ! -x "$H" ]; then
    no "kyu-web-hash" "$H is not built"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P="$(cd "$W" && pwd)/index.html"

if "$H" "$STEPS" > "$T/native" 2>"$T/err" && [ "$(grep -c '^billiards [0-9]* [0-9a-f]\{16\}$' "$T/native")" = 10 ]; then
    ok "kyu-web-hash steps both scenes natively ($(grep "^billiards $STEPS " "$T/native"))"
else
    no "kyu-web-hash" "$(cat "$T/err")"
fi
if grep -qiE '(src|href)="(https?:|//|[a-z./]+\.(js|css|png|wasm))' "$P" || grep -q "<link" "$P"; then
    no "self-contained" "$(grep -oiE '(src|href)="[^"]*"' "$P" | head -3)"
else
    ok "the page is one file: its scripts and the wasm are inside it ($(wc -c < "$P") bytes)"
fi

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
    skipped "chromium" "not installed (apt-get install -y chromium)"
    finish
fi
chrome() { # budget (ms of virtual time; 0: none, the DOM as the page has loaded), URL, extra flags...
    budget=$1 url=$2
    shift 2
    [ "$budget" -gt 0 ] && set -- --virtual-time-budget="$budget" "$@"
    prof=$(mktemp -d)
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
        "$@" "$url" 2>/dev/null
    rm -rf "$prof"
}
# The page's DOM once it holds `marker`, for what the page does after it has loaded (the live
# lesson's frames run on timers): should a dump come too early, a longer budget is tried.
dump_until() { # marker, URL, output file
    for budget in 3000 6000 12000; do
        chrome "$budget" "$2" --dump-dom > "$3"
        if grep -q "$1" "$3"; then return 0; fi
    done
    return 1
}
# The <pre id="test"> block of a dumped page, one line per line.
test_lines() { sed -n '/<pre id="test"/,/<\/pre>/p' "$1" | sed -e 's/^<pre id="test"[^>]*>//' -e 's/<\/pre>.*//'; }

# The engine is compiled synchronously (mk/wasm.mk), so the test's steps are done by the time the
# page has loaded: no virtual time is needed, nor waited for.
chrome 0 "file://$P?test=$STEPS" --dump-dom > "$T/loaded.html"
test_lines "$T/loaded.html" > "$T/page"
if [ -s "$T/page" ] && cmp -s "$T/native" "$T/page"; then
    ok "chromium: the wasm build's state hashes equal the native build's at 10 checkpoints of $STEPS steps, all three scenes ($(grep "^billiards $STEPS " "$T/page"); $(grep "^pour $STEPS " "$T/page"), a pour made with kyu_web_create/add_ball/add_plane/add_box)"
else
    no "determinism" "native and wasm differ: $(diff "$T/native" "$T/page" | head -4 | tr '\n' ' ' | cut -c1-400)"
fi

# The live lesson (the page's default settings are the test's): its panel shows the record that
# native stepping gives, whole, and the page's arithmetic agrees with every number it checks.
dump_until 'id="impact-json"[^>]*>{' "file://$P?test=1" "$T/dom.html"
live=$(sed -n 's/.*<pre id="impact-json"[^>]*>\([^<]*\)<.*/\1/p' "$T/dom.html")
native=$(sed -n 's/^lesson-impact //p' "$T/native")
if [ -n "$live" ] && [ "$live" = "$native" ]; then
    ok "chromium: the live lesson ran to its impact, and its record is the native one ($(echo "$live" | cut -c1-50)...)"
else
    no "live lesson record" "page '$(echo "$live" | cut -c1-120)' native '$(echo "$native" | cut -c1-120)'"
fi
toi=$(echo "$native" | sed -n 's/.*"time":\([0-9.]*\),.*/\1/p')
toi6=$(printf '%.6f' "$toi")
awk '/<ol id="stages">/ { on = 1 } on { print } on && /<\/ol>/ { exit }' "$T/dom.html" > "$T/stages.html" # not the script
stages=$(grep -o '<li><b>[^<]*</b>' "$T/stages.html" | wc -l)
agree=$(grep -o 'class="agree"' "$T/stages.html" | wc -l)
if [ "$stages" -eq 7 ] && grep -q "id=\"toi-engine\">$toi6<" "$T/stages.html" && [ "$agree" -eq 4 ] &&
    ! grep -q 'class="differ"' "$T/stages.html"; then
    ok "chromium: 7 stages with the engine's time of impact $toi6; the page's arithmetic agrees 4 times of 4"
else
    no "stage panel" "$stages stages, toi $toi6 on the page: $(grep -c "toi-engine\">$toi6<" "$T/stages.html"), $agree agree, $(grep -o 'class="differ">[^<]*' "$T/stages.html" | head -2)"
fi

shot() { chrome "$1" "file://$P?test=1" --screenshot="$T/shot.png" --window-size=1280,1400 >/dev/null; }
shot 3000
if [ ! -s "$T/shot.png" ]; then
    no "chromium screenshot" "no screenshot written"
elif ! command -v convert >/dev/null 2>&1; then
    skipped "screenshot pixels" "ImageMagick is not installed (apt-get install -y imagemagick)"
else
    # The header bar is dark navy (#1f2a44), the cloth green covers part of the window, and the
    # shaded balls (radial gradients) bring many colours; a blank or unstyled page has none of it.
    pixels() {
        head=$(convert "$T/shot.png" -format '%[pixel:p{600,10}]' info:)
        cloth=$(convert "$T/shot.png" -fuzz 4% -fill black +opaque '#1d6b45' -fill white -opaque '#1d6b45' -format '%[fx:mean]' info:)
        colours=$(convert "$T/shot.png" -format '%k' info:)
        [ "$head" = "srgb(31,42,68)" ] && awk "BEGIN { exit !($cloth > 0.05 && $colours > 1000) }"
    }
    if pixels || { shot 12000 && pixels; }; then
        ok "chromium: the screenshot shows the page (header $head, cloth share $cloth, $colours colours)"
    else
        no "screenshot pixels" "header '$head', cloth share '$cloth', colours '$colours'"
    fi
fi

# The README's browser example, in a page beside kyu.js, prints the native hash after 240 steps.
awk '/^```html$/ { on = 1; next } /^```$/ { on = 0 } on' README.md > "$W/readme.html"
want=$(sed -n 's/^billiards 240 //p' "$T/native")
chrome 0 "file://$(cd "$W" && pwd)/readme.html" --dump-dom > "$T/readme.html"
if [ -s "$W/readme.html" ] && grep -q "state hash $want" "$T/readme.html"; then
    ok "chromium: README's browser example prints the native hash $want"
else
    no "README browser example" "$(sed -e 's/<[^>]*>//g' "$T/readme.html" | tr -s '\n' ' ' | cut -c1-200)"
fi
finish
