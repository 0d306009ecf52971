#!/usr/bin/env bash
# Records unchanged and slowed runs of one workload per runtime with the real profilers, then
# measures how often `proftool diff`'s default gate fails them (docs/gate.md, "Real runs").
#   bench/gate-real/run.sh [OUT]        RUNS=20 SLOW_RUNS=10 KINDS="c go java node py samply"
# OUT (default target/gate-real) gets one folder per recording kind and length: base-N, slow2-N
# (render does twice its work) and slow1.25-N; then evaluate.py writes OUT/report.md. Needs perf,
# go, a JDK, node, py-spy and samply; run as root or with perf_event_paranoid <= 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here/../../target/gate-real}" && cd "${1:-$here/../../target/gate-real}" && pwd)
runs=${RUNS:-20}
slow_runs=${SLOW_RUNS:-10}
kinds=${KINDS:-c go java node py samply}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT

gcc -O1 -fno-omit-frame-pointer -fno-inline -g -o "$build/work" "$here/work.c"
(cd "$build" && cp "$here/work.go" main.go && go mod init work > /dev/null 2>&1 && go build -trimpath -o gowork .)
javac -d "$build" "$here/Work.java"

# ROUNDS of each length: about 1 s (short) and 4 s (long) of CPU on this machine.
declare -A short=([c]=150 [go]=120 [java]=150 [node]=120 [py]=150 [samply]=150)
declare -A long=([c]=600 [go]=480 [java]=600 [node]=480 [py]=600 [samply]=600)

# record KIND LENGTH TAG I FACTOR: one run into $out/KIND-LENGTH/TAG-I.*
record() {
  local kind=$1 length=$2 tag=$3 i=$4 factor=$5
  local rounds dir=$out/$kind-$length
  [ "$length" = short ] && rounds=${short[$kind]} || rounds=${long[$kind]}
  mkdir -p "$dir"
  case $kind in
    c)
      perf record -q -g -F 999 -e cpu-clock -o "$build/perf.data" "$build/work" "$rounds" "$factor" > /dev/null 2>&1
      perf script -i "$build/perf.data" 2> /dev/null | gzip -1 > "$dir/$tag-$i.perf.gz" ;;
    samply)
      # Its symbols beside each profile ($tag-$i.syms.json), which name its addresses.
      samply record --save-only --unstable-presymbolicate -r 999 -o "$dir/$tag-$i.json" \
        -- "$build/work" "$rounds" "$factor" > /dev/null 2>&1 ;;
    go)
      local run=$build/go-$tag-$i; mkdir -p "$run"
      "$build/gowork" "$run" "$rounds" "$factor"
      for p in cpu heap allocs block mutex; do mkdir -p "$out/go$p-$length"; mv "$run/$p.pb.gz" "$out/go$p-$length/$tag-$i.pb.gz"; done ;;
    java)
      java -XX:StartFlightRecording:filename="$dir/$tag-$i.jfr",settings=profile -cp "$build" Work "$rounds" "$factor" > /dev/null 2>&1 ;;
    node)
      node --cpu-prof --cpu-prof-dir="$build/node" --cpu-prof-name="$tag-$i.cpuprofile" "$here/work.js" "$rounds" "$factor"
      mv "$build/node/$tag-$i.cpuprofile" "$dir/" ;;
    py)
      py-spy record -r 100 -f raw -o "$dir/$tag-$i.folded" -- python3 -I -S "$here/work.py" "$rounds" "$factor" > /dev/null 2>&1
      mkdir -p "$out/pythreads-$length"
      py-spy record -r 100 --threads -f speedscope -o "$out/pythreads-$length/$tag-$i.speedscope.json" -- python3 -I -S "$here/work.py" "$rounds" "$factor" > /dev/null 2>&1 ;;
  esac
}

for kind in $kinds; do
  for length in short long; do
    echo "recording $kind $length" >&2
    for i in $(seq 1 "$runs"); do record "$kind" "$length" base "$i" 1; done
    for i in $(seq 1 "$slow_runs"); do record "$kind" "$length" slow2 "$i" 2; record "$kind" "$length" slow1.25 "$i" 1.25; done
  done
done
python3 "$here/evaluate.py" "$out" | tee "$out/report.md"
