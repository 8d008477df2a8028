#!/bin/sh
# The serial share of kyu's step, measured with perf: run a command that steps a world with ONE
# worker, sample its stack 400 times a second, and count the samples inside kyu_world_step that are
# not inside a task of kyu_parallel_for (every task function's name ends in _task; with one worker
# the task is a tail call, so the frame of kyu_parallel_for itself is gone). That share is what more
# workers cannot shorten; Amdahl's law then bounds the speed-up of W workers by 1 / (s + (1 - s) / W).
#
#   tools/serial-share.sh build/tools/bench gas 100000 1 --steps 150
#
# Prints the share, the stages it falls in, and the bound for 2, 4, 8 and 16 workers. Needs perf
# (linux-perf) and a build with symbols (kyu's default -g).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARG ...]   (the command must run kyu with one worker)" >&2; exit 2; }
command -v perf >/dev/null || { echo "$0: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
data=$(mktemp /tmp/kyu-serial.XXXXXX)
trap 'rm -f "$data"' EXIT
perf record -q -F 400 --call-graph dwarf,32768 -o "$data" "$@" >/dev/null 2>&1
perf script -i "$data" -F ip,sym 2>/dev/null | awk '
/^$/ {
    if (n && step) { total++; if (!parallel) { serial++; stage_samples[stage]++ } }
    n = 0; parallel = 0; step = 0; below = ""; next
}
{
    n++
    if ($2 ~ /_task$/) parallel = 1
    if ($2 ~ /^kyu_world_step/ && !step) { step = 1; stage = below }
    below = $2
}
END {
    if (total == 0) { print "no samples inside kyu_world_step: is the command stepping a kyu world?"; exit 1 }
    s = serial / total
    printf "samples in kyu_world_step: %d, serial: %d (%.1f%%)\n", total, serial, 100 * s
    for (f in stage_samples) printf "  %5.1f%%  %s\n", 100 * stage_samples[f] / total, f
    printf "Amdahl bound:"
    for (w = 2; w <= 16; w *= 2) printf "  %d workers %.2fx", w, 1 / (s + (1 - s) / w)
    printf "\n"
}'
