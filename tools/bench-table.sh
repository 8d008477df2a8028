#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-table.sh BENCH_BINARY [FLOOR_BINARY]: the benchmark table README shows (`make bench`).
#
# Rows, for each N in SIZES:
#   PILE awake   (--no-sleep, STEPS steps): the headline, what a user pays while things move
#   GAS          (STEPS steps; a gas never sleeps)
#   PILE + sleep (the scene's own 600 steps, 300 from 100k: a settled pile costs almost nothing)
# each at every worker count in WORKERS, and BULLETS once. The same step count at every N, so the
# cost ratios between sizes compare like with like. Runs are interleaved: REPEATS rounds, each
# running every row once (and the floor, the least work any engine can do on PILE, beside each
# PILE N), so a noisy minute touches every row alike; each cell is the median, with the range.
# and, for each N in BIG_SIZES, PILE awake and GAS for BIG_STEPS steps (how the cost per body-step
# and the memory per body hold up at a million). Bytes per body is the peak resident size over N.
#   SIZES="10000 100000"  WORKERS="1 2"  REPEATS=3  STEPS=150  BIG_SIZES="" (e.g. 1000000)  BIG_STEPS=60
#   EXTRA="--fixed-rotation" (bench options for every row)
set -eu

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 BENCH_BINARY [FLOOR_BINARY]" >&2
    exit 2
fi
bench=$1
floor=${2:-}
sizes=${SIZES:-10000 100000}
workers_list=${WORKERS:-1 2}
repeats=${REPEATS:-3}
steps=${STEPS:-150}
big_sizes=${BIG_SIZES:-}
big_steps=${BIG_STEPS:-60}
extra=${EXTRA:-}

# value KEY LINE: the value of KEY in a key=value line (empty when absent).
value() {
    printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# stats FILE: "median min max" of the numbers in FILE.
stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m, v[1], v[NR] }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The rows: "label|bench arguments".
rows=()
for n in $sizes; do
    for w in $workers_list; do rows+=("pile_awake|pile $n $w --no-sleep --steps $steps"); done
done
for n in $sizes; do
    for w in $workers_list; do rows+=("gas|gas $n $w --steps $steps"); done
done
for n in $sizes; do
    for w in $workers_list; do rows+=("pile_sleep|pile $n $w"); done
done
for n in $big_sizes; do
    for w in $workers_list; do rows+=("pile_awake|pile $n $w --no-sleep --steps $big_steps"); done
    for w in $workers_list; do rows+=("gas|gas $n $w --steps $big_steps"); done
done
rows+=("bullets|bullets 1000 1")

for round in $(seq "$repeats"); do
    for i in "${!rows[@]}"; do
        args=${rows[$i]#*|}
        # shellcheck disable=SC2086
        line=$("$bench" $args $extra | grep '^engine=' | tail -n 1)
        value ms_per_step "$line" >> "$tmp/ms.$i"
        printf '%s\n' "$line" > "$tmp/last.$i"
    done
    if [ -n "$floor" ]; then
        for n in $sizes; do "$floor" "$n" "$steps" | tr ' ' '\n' | sed -n 's/^ms_per_step=//p' >> "$tmp/floor.$n.$steps"; done
        for n in $big_sizes; do "$floor" "$n" "$big_steps" | tr ' ' '\n' | sed -n 's/^ms_per_step=//p' >> "$tmp/floor.$n.$big_steps"; done
    fi
done

echo "kyu benchmark: medians of $repeats interleaved rounds (range in brackets), $(uname -m), $(nproc 2>/dev/null || echo '?') cores"
echo
echo "| scene | N | workers | steps | ms/step | peak MB | B/body | figure | floor ms/step | x floor |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
for i in "${!rows[@]}"; do
    label=${rows[$i]%%|*}
    line=$(cat "$tmp/last.$i")
    n=$(value n "$line")
    read -r med lo hi <<< "$(stats "$tmp/ms.$i")"
    cell="$med"
    if [ "$repeats" -gt 1 ]; then cell="$med ($lo-$hi)"; fi
    case $label in
        pile_awake) name="PILE awake"; figure="escaped $(value escaped "$line")" ;;
        pile_sleep) name="PILE + sleep"; figure="escaped $(value escaped "$line"), sleeping $(value sleeping "$line") at the end" ;;
        gas) name="GAS"; figure="energy ratio $(value energy_ratio "$line"), escaped $(value escaped "$line")" ;;
        bullets) name="BULLETS"; figure="passed $(value passed "$line")" ;;
    esac
    fl="" ratio=""
    st=$(value steps "$line")
    if [ "$label" = pile_awake ] && [ -f "$tmp/floor.$n.$st" ]; then
        fl=$(stats "$tmp/floor.$n.$st" | cut -d' ' -f1)
        ratio=$(awk -v a="$med" -v b="$fl" 'BEGIN { if (b > 0) printf "%.1f", a / b }')
    fi
    mb=$(value peak_rss_mb "$line")
    per_body=$(awk -v m="$mb" -v n="$n" 'BEGIN { printf "%.0f", m * 1048576 / n }')
    echo "| $name | $n | $(value workers "$line") | $st | $cell | $mb | $per_body | $figure | $fl | $ratio |"
done
