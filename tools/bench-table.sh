#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-table.sh BENCH_BINARY: runs the default benchmark set (SCENES.md) and prints a Markdown
# table of median ms/step over REPEATS runs. `make bench` runs it.
#   WORKERS="1 2"    worker counts, each scene is run with each (default "1 2")
#   SIZES="1000 10000 100000"  the N of pile and gas (bullets has its own 1000)
#   REPEATS=k        runs per scene (default 3)
#   BUDGET_S=s       seconds allowed per scene (default 90): a scene whose full step count would take
#                    longer is run with fewer steps, marked with * (so the whole set stays ~5 min)
set -eu

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 BENCH_BINARY" >&2
    exit 2
fi
bench=$1
workers_list=${WORKERS:-1 2}
sizes=${SIZES:-1000 10000 100000}
workers=1
repeats=${REPEATS:-3}
budget_s=${BUDGET_S:-90}

# value KEY LINE: the value of KEY in a key=value line (empty when absent).
value() {
    printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# full_steps SCENE N: the scene's own step count, as in SCENES.md.
full_steps() {
    case $1 in
        pile) if [ "$2" -ge 100000 ]; then echo 300; else echo 600; fi ;;
        gas) echo 600 ;;
        bullets) echo 60 ;;
    esac
}

# steps_within_budget SCENE N: the full step count, or fewer when a short probe says the REPEATS
# runs would not fit in BUDGET_S. The probe underestimates a pile (its early steps are free fall),
# which is why the budget leaves room.
steps_within_budget() {
    local full probe ms steps
    full=$(full_steps "$1" "$2")
    probe=$("$bench" "$1" "$2" "$workers" --steps 20 | grep '^engine=')
    ms=$(value ms_per_step "$probe")
    steps=$(awk -v ms="$ms" -v full="$full" -v r="$repeats" -v b="$budget_s" 'BEGIN {
        s = (ms > 0) ? int(b * 1000 / (ms * r) / 10) * 10 : full
        if (s > full) s = full
        if (s < 20) s = 20
        print s }')
    echo "$steps"
}

reduced=0
rows=""
runs=""
for n in $sizes; do runs="$runs pile:$n"; done
for n in $sizes; do runs="$runs gas:$n"; done
runs="$runs bullets:1000"
for run in $runs; do
  for workers in $workers_list; do
    scene=${run%%:*}
    n=${run##*:}
    steps=$(steps_within_budget "$scene" "$n")
    mark=""
    if [ "$steps" -lt "$(full_steps "$scene" "$n")" ]; then
        mark="*"
        reduced=1
    fi
    out=$("$bench" "$scene" "$n" "$workers" --steps "$steps" --repeat "$repeats")
    first=$(printf '%s\n' "$out" | grep '^engine=' | head -n 1)
    last=$(printf '%s\n' "$out" | grep 'median_ms_per_step=' | tail -n 1)
    case $scene in
        pile) figure="escaped $(value escaped "$first")" ;;
        gas) figure="energy ratio $(value energy_ratio "$first"), escaped $(value escaped "$first")" ;;
        bullets) figure="passed $(value passed "$first")" ;;
    esac
    if [ "$(value deterministic "$last")" = "no" ]; then
        figure="$figure, NOT deterministic across runs"
    fi
    case $scene in
        pile) figure="$figure, sleeping $(value sleeping "$first")" ;;
    esac
    rows="$rows| $scene | $n | $workers | $steps$mark | $(value median_ms_per_step "$last") | $(value peak_rss_mb "$first") | $figure |
"
  done
done

echo "kyu benchmark: median of $repeats runs, scenes as in SCENES.md, $(uname -m), $(nproc 2>/dev/null || echo '?') cores"
if [ "$reduced" -eq 1 ]; then
    echo "(* fewer steps than SCENES.md asks, to keep the set within ${budget_s} s per scene: not comparable)"
fi
echo
echo "| scene | N | workers | steps | median ms/step | peak MB | figure |"
echo "|---|---:|---:|---:|---:|---:|---|"
printf '%s' "$rows"
