#!/usr/bin/env bash
# Benchmark (not a test): for every format proftool both reads and writes, generate a synthetic
# input of at least SIZE bytes (default 100 MB) and time reading it into folded stacks, beside
# `wc -l` and `cat` on the same file as the floor. Best of RUNS runs (default 3); peak RSS from
# /usr/bin/time. Inputs are kept in bench/data/ and regenerated when missing or too small.
#
#   bench/run.sh            # all formats
#   bench/run.sh lispworks  # one format
#   bench/run.sh otlp otlp-json  # OpenTelemetry profiles, protobuf and OTLP/JSON, written by the generator
#   bench/run.sh pprof-legacy  # gperftools' CPU and heap profiles beside go tool pprof -raw
#   PROFILER_CLI=…/profiler-cli.js bench/run.sh art-trace simpleperf  # Android's, beside the Firefox Profiler's importers
#   bench/run.sh merge diff # proftool merge of 1,000 inputs, proftool diff of two 100 MB inputs
#   MEDIAN=7 bench/run.sh folded-walks  # one of issue 21's folded shapes (see the end)
#   PROFTOOL=../old/target/release/proftool bench/run.sh br  # another build, on the same inputs
#
# pprof's input is the protocol buffer itself (not gzipped, SIZE bytes as its reader parses them), and
# `go tool pprof -raw` (Debian golang-go) is timed on the same file in the same run.
#
# callgrind's input is written by the generator's own callgrind shape (a program's call graph, not
# proftool's writer), and callgrind_annotate (Debian's valgrind) is timed on the same file in the
# same run, with the ratio of their times.
#
# GHC's text report (ghc-prof) is read only: its input is written by the generator's own bench-only
# writer, and inferno-collapse-ghcprof (`cargo install inferno`) is timed on the same file in the same
# run, with the ratio of their times.
#
# Each read → folded row is followed by the reports on the same file: `summary`, `calls --fn` (the
# function summary puts first) and `tree --depth 5`, each with its time as a multiple of the
# conversion's (the issue asks at most 1.5 x).
#
# Python's pstats (read only) is written by the generator's own marshal writer (a program's caller
# graph, as its callgrind shape), and Python's `pstats.Stats(FILE)` is timed on the same file, with
# the ratio of their times.
#
# V8's tick log (v8-log, read only) is written by the generator's own log writer, and V8's tick
# processor, `node --prof-process --nm=true`, is timed on the same file, with the ratio of their times.
#
# Perfetto's traces (read only) are written by the generator's own encoder, in traced_perf's
# shape; trace_processor_shell is timed on the same file where it is installed.
#
# GNU gprof's text report (read only) is written by the generator's own writer of `gprof -b`'s
# tables (a program's caller graph, as its pstats shape); gprof reads gmon.out, not its report, so
# there is no tool of its own to time on the file: the row states proftool's time per MB.
#
# valgrind's massif and DHAT, VTune's and Visual Studio's CSV, HPROF, xperf and Very Sleepy (read
# only) are written by the generator's own writers (bench/generate_valgrind.rs and
# bench/generate_tables.rs), each beside its own reader where one runs here: ms_print, and
# inferno-collapse-vtune, inferno-collapse-vsprof and gprof2dot (`pip install gprof2dot`) where
# found on PATH; DHAT's viewer runs in a browser, so its row states proftool's time per MB. A Very
# Sleepy capture is sized by its entries uncompressed (its archive is about a ninth of SIZE), and
# gprof2dot reads only its one-line call stacks, before 0.92: it is timed on a capture of the same
# program in the 0.90 form.
#
# JFR (read only) has no generator: a recording's metadata, checkpoints and constant pools are the
# JDK's to write, and a writer of them here would test proftool against itself. `bench/run.sh jfr`
# records bench/Walk.java (random call paths of 8 threads for JFR_SECONDS, default 20) with
# OpenJDK's own recorder (execution samples every 1 ms, allocation samples), then repeats that
# recording until the file is SIZE bytes: a file of many chunks, each with its own metadata and
# pools, as `jfr summary` reads it. The JDK's `jfr print --events jdk.ExecutionSample` is timed on
# the same file, with the ratio of their times.
#
# Sample-per-record formats (sampler, br) get a file of at least 1 GB made of about 10,000 distinct
# sample stacks (30,000 generated nodes, a third of them with samples) repeated, and a second row that times writing them: their stacks, as folded text with
# counts, converted back into the format.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100000000}
RUNS=${RUNS:-3}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench needs GNU time at $TIME (apt-get install time)" >&2; exit 1; }

cargo build --release --quiet --bin proftool --example generate
bin=${PROFTOOL:-${CARGO_TARGET_DIR:-target}/release/proftool}
gen=${CARGO_TARGET_DIR:-target}/release/examples/generate
mkdir -p bench/data

# best SECONDS and its peak RSS (KB) of RUNS runs of a command whose stdout is discarded
measure() {
  local best="" rss=0 t r
  for _ in $(seq "$RUNS"); do
    "$TIME" -o bench/data/.time -f "%e %M" "$@" > /dev/null
    read -r t r < bench/data/.time
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$r; fi
  done
  echo "$best $rss"
}

# the report rows for FORMAT FILE BYTES CONVERT-SECONDS; calls is of the function summary puts
# first (the CSV's first field: a name with a comma, a C++ signature or massif's allocation
# functions, is in quotes, a quote in it doubled)
reports() {
  local name=$1 file=$2 bytes=$3 base=$4 fn s r report
  local -a args
  fn=$("$bin" summary -q --from "$name" --first 1 --format csv "$file" | awk 'NR == 2 {
    if (sub(/^"/, "")) { gsub(/""/, "\001"); sub(/".*/, ""); gsub(/\001/, "\"") } else sub(/,.*/, ""); print }')
  for report in summary calls tree; do
    case $report in
      summary) args=(summary) ;;
      calls) args=(calls --fn "$fn") ;;
      tree) args=(tree --depth 5) ;;
    esac
    read -r s r < <(measure "$bin" "${args[@]}" -q --from "$name" "$file")
    row "proftool ${args[0]} ${args[1]:-}" "$s" "$r" "$bytes"
    awk -v a="$s" -v b="$base" 'BEGIN { if (b > 0) printf "    %.2f x the conversion to folded\n", a / b }'
  done
}

row() { # label seconds rss bytes
  awk -v l="$1" -v s="$2" -v r="$3" -v b="$4" 'BEGIN{
    mbs = (s > 0) ? sprintf("%8.0f", b / 1e6 / s) : "     inf";
    printf "  %-28s %7.2f s  %s MB/s  peak RSS %7.1f MB (%.3f x input)\n", l, s, mbs, r * 1.024 / 1000, r * 1024 / b }'
}

# The generator's input of SHAPE in FILE, made unless it holds SIZE bytes already; sets bytes.
generated() { # shape file
  if [ ! -f "$2" ] || [ "$(stat -c %s "$2")" -lt "$SIZE" ]; then
    "$gen" "$1" "$SIZE" "$2"
  fi
  bytes=$(stat -c %s "$2")
}

# A format proftool only reads: `cat` on FILE, proftool reading it into folded stacks (its time in
# ours) and the reports on it.
read_rows() { # format file
  echo "$1 → folded: $2, $((bytes / 1000000)) MB"
  read -r s r < <(measure cat "$2");                                   row "cat" "$s" "$r" "$bytes"
  read -r ours r < <(measure "$bin" convert -q --from "$1" --to folded "$2" -); row "proftool $1 → folded" "$ours" "$r" "$bytes"
  reports "$1" "$2" "$bytes" "$ours"
}

# The producer's own reader, COMMAND…, timed on the same file (labelled LABEL), and how many times
# as fast proftool was (the issues ask at least 2 x).
against() { # label command…
  local label=$1
  shift
  read -r theirs r < <(measure "$@"); row "$label" "$theirs" "$r" "$bytes"
  awk -v a="$theirs" -v b="$ours" -v l="$label" 'BEGIN { if (b > 0) printf "  proftool %.1f x as fast as %s\n", a / b, l }'
}

# proftool's time per MB of a format with no reader of its own to time here, WHAT naming the file
per_megabyte() { # what
  awk -v t="$ours" -v b="$bytes" -v w="$1" 'BEGIN { if (b > 0) printf "  proftool %.3f s per MB of %s\n", t / (b / 1000000), w }'
}

# name:first-extension of every format whose READ and WRITE columns (the first yes/no pair) are yes
formats=$("$bin" formats | awk 'NR > 1 {
  for (i = 2; i < NF; i++) if ($i == "yes" || $i == "no") break
  if ($i == "yes" && $(i + 1) == "yes") { sub(/^\./, "", $2); print $1 ":" $2 } }')
for entry in $formats; do
  name=${entry%%:*} ext=${entry#*:}
  [ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
  file=bench/data/big.$ext
  size=$SIZE nodes=""
  case $name in sampler | br) size=${SAMPLER_SIZE:-1010000000} nodes=30000 ;; esac
  # The generator writes pprof as the protocol buffer itself (SIZE bytes uncompressed), a .pb.
  [ "$name" = pprof ] && file=bench/data/big.pb
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$size" ]; then
    "$gen" "$name" "$size" "$file" $nodes
  fi
  bytes=$(stat -c %s "$file")
  echo "$name → folded: $file, $((bytes / 1000000)) MB, $(wc -l < "$file") lines"
  read -r s r < <(measure cat "$file");                                   row "cat" "$s" "$r" "$bytes"
  read -r s r < <(measure wc -l "$file");                                 row "wc -l" "$s" "$r" "$bytes"
  read -r s r < <(measure "$bin" convert -q --from "$name" --to folded "$file" -); row "proftool $name → folded" "$s" "$r" "$bytes"
  reports "$name" "$file" "$bytes" "$s"
  if [ "$name" = pprof ]; then
    if command -v go > /dev/null; then
      read -r s r < <(measure go tool pprof -raw "$file"); row "go tool pprof -raw" "$s" "$r" "$bytes"
    else
      echo "  go not found: install golang-go to compare with go tool pprof -raw"
    fi
  fi
  if [ "$name" = callgrind ]; then
    # Valgrind's own reader of the file, its function table whole (the issue asks proftool at
    # least twice its speed).
    if command -v callgrind_annotate > /dev/null; then
      read -r ours r < <(measure "$bin" convert -q --from callgrind --to folded "$file" -)
      read -r theirs r < <(measure callgrind_annotate --threshold=100 "$file"); row "callgrind_annotate" "$theirs" "$r" "$bytes"
      awk -v a="$theirs" -v b="$ours" 'BEGIN { if (b > 0) printf "    proftool %.1f x as fast as callgrind_annotate\n", a / b }'
    else
      echo "  callgrind_annotate not found: install valgrind to compare with it"
    fi
  fi
  if [ "$name" = ghc-px ]; then
    # GHC declares stacks as they are first created, not always in pre-order: the same file with
    # every stack declared breadth-first (by depth, stable), the worst case for the reader.
    bfs=bench/data/big-bfs.px
    [ "$bfs" -nt "$file" ] || python3 - "$file" "$bfs" <<'PY'
import sys
head, stacks, tail, depth = [], [], [], {}
with open(sys.argv[1], 'rb') as f:
    for line in f:
        if line.startswith(b'2 '):
            p = line.split()
            d = 0 if p[2] == b'1' else depth.get(p[4], -1) + 1
            depth.setdefault(p[1], d)
            stacks.append((d, len(stacks), line))
        else:
            (tail if stacks else head).append(line)
with open(sys.argv[2], 'wb') as f:
    f.writelines(head + [l for _, _, l in sorted(stacks)] + tail)
PY
    read -r s r < <(measure "$bin" convert -q --from ghc-px --to folded "$bfs" -); row "the same, stacks breadth-first" "$s" "$r" "$bytes"
  fi
  if [ -n "$nodes" ]; then
    stacks=bench/data/big.$ext.folded
    "$bin" convert -q --from "$name" --to folded "$file" "$stacks"
    samples=$(awk '{ n += $NF } END { print n }' "$stacks")
    # As many samples and bytes as the input has: more than the defaults of --max-samples and, for
    # 1 GB, of --max-output-size.
    read -r s r < <(measure "$bin" convert -q --max-samples "$samples" --max-output-size 1T --from folded --to "$name" "$stacks" -)
    echo "  writing $samples samples ($(wc -l < "$stacks") distinct stacks) as $name, MB/s of output:"
    row "proftool folded → $name" "$s" "$r" "$bytes"
  fi
done
if [ $# -eq 0 ] || [[ " $* " == *" ghc-prof "* ]]; then
  file=bench/data/big-text.prof
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$SIZE" ]; then
    "$gen" ghc-prof "$SIZE" "$file"
  fi
  bytes=$(stat -c %s "$file")
  echo "ghc-prof → folded: $file, $((bytes / 1000000)) MB, $(wc -l < "$file") lines"
  read -r s r < <(measure cat "$file");                                   row "cat" "$s" "$r" "$bytes"
  read -r s r < <(measure wc -l "$file");                                 row "wc -l" "$s" "$r" "$bytes"
  read -r ours r < <(measure "$bin" convert -q --from ghc-prof --to folded "$file" -); row "proftool ghc-prof → folded" "$ours" "$r" "$bytes"
  reports ghc-prof "$file" "$bytes" "$ours"
  if command -v inferno-collapse-ghcprof > /dev/null; then
    read -r theirs r < <(measure inferno-collapse-ghcprof --ticks "$file"); row "inferno-collapse-ghcprof --ticks" "$theirs" "$r" "$bytes"
    awk -v a="$theirs" -v b="$ours" 'BEGIN { if (b > 0) printf "  proftool/inferno throughput: %.2f x\n", a / b }'
  else
    echo "  inferno-collapse-ghcprof not found: install it with 'cargo install inferno' to compare"
  fi
fi
if [ $# -eq 0 ] || [[ " $* " == *" pprof-legacy "* ]]; then
  # pprof's legacy profiles (read only): a gperftools CPU profile (binary) and a sampled heap
  # profile (text) from the generator, each beside Go's own reader of them, `go tool pprof -raw`
  # (Debian golang-go), with the ratio of their times (the issue asks at least 2 x).
  for kind in cpu heap; do
    file=bench/data/big-legacy.$kind
    generated "pprof-legacy-$kind" "$file"
    read_rows pprof-legacy "$file"
    if command -v go > /dev/null; then
      against "go tool pprof -raw" go tool pprof -symbolize=none -raw "$file"
    else
      echo "  go not found: install golang-go to compare with go tool pprof -raw"
    fi
  done
fi
if [ $# -eq 0 ] || [[ " $* " == *" pstats "* ]]; then
  # Python's pstats (read only): the generator's own marshal writer, a program's caller graph;
  # Python's own reader, pstats.Stats (marshal.load and its totals), timed on the same file.
  generated pstats bench/data/big.pstats
  read_rows pstats bench/data/big.pstats
  against "pstats.Stats" python3 -c "import pstats, sys; pstats.Stats(sys.argv[1])" bench/data/big.pstats
fi
if [ $# -eq 0 ] || [[ " $* " == *" v8-log "* ]]; then
  # V8's tick log (read only): the generator's own log (code created and moved, ticks through it);
  # V8's own tick processor, node --prof-process (with --nm=true: no symbols, as proftool), timed on
  # the same file.
  generated v8-log bench/data/big.v8.log
  read_rows v8-log bench/data/big.v8.log
  if command -v node > /dev/null; then
    against "node --prof-process" node --prof-process --nm=true bench/data/big.v8.log
  else
    echo "  node not found: install nodejs to compare with node --prof-process"
  fi
fi
if [ $# -eq 0 ] || [[ " $* " == *" perfetto "* ]]; then
  # Perfetto traces (read only): the generator's own trace of traced_perf's shape (PerfSamples of
  # interned callstacks, the interned data written as first used, the state cleared every 50,000
  # samples). Perfetto's own reader, trace_processor_shell, is fetched by its Python package from
  # Google's storage: where it is installed, it is timed loading the same file.
  generated perfetto bench/data/big.pftrace
  read_rows perfetto bench/data/big.pftrace
  if command -v trace_processor_shell > /dev/null; then
    against "trace_processor_shell" trace_processor_shell -q /dev/null bench/data/big.pftrace
  else
    echo "  trace_processor_shell not found: nothing of Perfetto's own to time here"
  fi
fi
if [ $# -eq 0 ] || [[ " $* " == *" gprof "* ]]; then
  # GNU gprof's text report (read only): the generator's own writer of `gprof -b`'s tables, a
  # program's caller graph as pstats' shape. gprof itself reads gmon.out, not its report: there is
  # nothing of its own to time on the same file, so the row says proftool's time per MB.
  generated gprof bench/data/big.gprof
  read_rows gprof bench/data/big.gprof
  per_megabyte "gprof report"
fi
if [ $# -eq 0 ] || [[ " $* " == *" massif "* ]]; then
  # valgrind's massif (read only): the generator's own massif.out of a C++ program's heap, every
  # snapshot detailed with stacks whole (--detailed-freq=1 --depth=200), deep trees. ms_print
  # (Debian's valgrind) reads every snapshot and prints each tree, proftool the peak's: both timed
  # on the same file.
  generated massif bench/data/big.massif
  read_rows massif bench/data/big.massif
  if command -v ms_print > /dev/null; then
    # ms_print (Perl) warns of deep recursion on each tree past 100 levels: kept aside, counted.
    against "ms_print" bash -c 'ms_print "$0" 2> bench/data/ms_print.err' bench/data/big.massif
    echo "  ms_print's warnings: $(grep -c . bench/data/ms_print.err) ($(sort -u bench/data/ms_print.err | sed 's/ at .*//' | sort -u | head -3 | paste -sd ';'))"
  else
    echo "  ms_print not found: install valgrind to compare with it"
  fi
fi
if [ $# -eq 0 ] || [[ " $* " == *" dhat "* ]]; then
  # valgrind's DHAT (read only): the generator's own dhat.out (heap mode, 40 frames a stack). Its
  # viewer, dh_view.html, reads it in a browser: nothing of its own to time here, so the row says
  # proftool's time per MB.
  generated dhat bench/data/big.dhat
  read_rows dhat bench/data/big.dhat
  per_megabyte "DHAT profile"
fi
# VTune's top-down CSV, Visual Studio's call tree summary, HPROF's text (cpu=samples) and xperf's
# exported table (read only): the generator's own, each beside another project's reader of it on
# the same file, found on PATH: inferno's collapsers (`cargo install inferno`) and gprof2dot's
# parsers (`pip install gprof2dot`: it parses, then writes its dot graph).
for reader in "vtune inferno-collapse-vtune" "vsprof inferno-collapse-vsprof" "hprof gprof2dot -f hprof" \
  "xperf gprof2dot -f xperf"; do
  read -r shape tool <<< "$reader"
  [ $# -eq 0 ] || [[ " $* " == *" $shape "* ]] || continue
  generated "$shape" "bench/data/big.$shape"
  read_rows "$shape" "bench/data/big.$shape"
  if command -v "${tool%% *}" > /dev/null; then
    # shellcheck disable=SC2086 # the tool's words
    against "$tool" $tool "bench/data/big.$shape"
  else
    echo "  ${tool%% *} not found: install inferno (cargo) or gprof2dot (pip) to compare"
  fi
done
if [ $# -eq 0 ] || [[ " $* " == *" sleepy "* ]]; then
  # Very Sleepy's captures (read only): the generator's own zip archive, sized by its entries
  # uncompressed (SIZE bytes of call stacks and symbols; see bench/generate_tables.rs), so the rows'
  # MB/s and RSS ratio are of those bytes. First 0.92's form, then a capture of the same program in
  # 0.90's, the one-line call stacks gprof2dot reads (it takes 0.92's first address for seconds and
  # stops), beside gprof2dot's parser of it.
  entries() { python3 -c 'import sys, zipfile; print(sum(i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist()))' "$1"; }
  for shape in sleepy sleepy-0.90; do
    file=bench/data/big.$shape
    [ "$shape" = sleepy-0.90 ] && file=bench/data/big-0.90.sleepy
    if [ ! -f "$file" ] || [ "$(entries "$file")" -lt "$SIZE" ]; then
      "$gen" "$shape" "$SIZE" "$file"
    fi
    bytes=$(entries "$file")
    echo "$shape: an archive of $(($(stat -c %s "$file") / 1000000)) MB, its entries $((bytes / 1000000)) MB uncompressed"
    read_rows sleepy "$file"
  done
  if command -v gprof2dot > /dev/null; then
    against "gprof2dot -f sleepy (0.90)" gprof2dot -f sleepy bench/data/big-0.90.sleepy
  else
    echo "  gprof2dot not found: install it with 'pip install gprof2dot' to compare"
  fi
fi
if [ $# -eq 0 ] || [[ " $* " == *" art-trace "* ]] || [[ " $* " == *" simpleperf "* ]]; then
  # Android's ART method traces and simpleperf's report_sample protobuf (read only): the
  # generator's own writers (bench/android.rs). Neither ART nor simpleperf reads them back off a
  # device; the Firefox Profiler's importers do, timed on the same file through its command line
  # where PROFILER_CLI names profiler-cli.js (npm @firefox-devtools/profiler-cli; `load`, which
  # imports and processes the file, then `stop`).
  for shape in art-trace simpleperf; do
    [ $# -eq 0 ] || [[ " $* " == *" $shape "* ]] || continue
    generated "$shape" "bench/data/big.$shape.trace"
    read_rows "$shape" "bench/data/big.$shape.trace"
    if [ -n "${PROFILER_CLI:-}" ]; then
      against "profiler-cli load" bash -c 'node "$0" stop --all > /dev/null 2>&1; node "$0" load "$1" && node "$0" stop --all' \
        "$PROFILER_CLI" "bench/data/big.$shape.trace"
    else
      echo "  PROFILER_CLI not set: no Firefox Profiler importer timed"
    fi
  done
fi
if { [ $# -eq 0 ] && command -v java > /dev/null; } || [[ " $* " == *" jfr "* ]]; then
  file=bench/data/big.jfr
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$SIZE" ]; then
    jfc=bench/data/walk.jfc
    sed 's|>10 ms<|>1 ms<|; s|>100/s<|>1000/s<|' fixtures/jfr/samples-and-settings.jfc > "$jfc"
    javac -d bench/data bench/Walk.java
    java -XX:StartFlightRecording=filename=bench/data/walk.jfr,settings="$jfc" -cp bench/data Walk 8 "${JFR_SECONDS:-20}" > /dev/null
    : > "$file"
    while [ "$(stat -c %s "$file")" -lt "$SIZE" ]; do cat bench/data/walk.jfr >> "$file"; done
  fi
  bytes=$(stat -c %s "$file")
  echo "jfr → folded: $file, $((bytes / 1000000)) MB, $("$bin" info -q "$file" | awk '$1 == "jfr.chunks" { print $2 }') chunks"
  read -r s r < <(measure cat "$file");                                   row "cat" "$s" "$r" "$bytes"
  read -r ours r < <(measure "$bin" convert -q --from jfr --to folded "$file" -); row "proftool jfr → folded" "$ours" "$r" "$bytes"
  reports jfr "$file" "$bytes" "$ours"
  read -r theirs r < <(measure jfr print --events jdk.ExecutionSample "$file"); row "jfr print --events jdk.ExecutionSample" "$theirs" "$r" "$bytes"
  awk -v a="$theirs" -v b="$ours" 'BEGIN { if (b > 0) printf "  proftool %.1f x as fast as jfr print\n", a / b }'
fi
MEDIAN=${MEDIAN:-5}

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# alternated LABEL... -- runs "label=command" pairs given as arrays named by each LABEL, MEDIAN
# rounds, and prints "label wall user rss" medians per label
alternated() {
  local round label
  declare -A runs=()
  for round in $(seq "$MEDIAN"); do
    for label in "$@"; do
      local -n command=$label
      "$TIME" -o bench/data/.time -f "%e %U %M" "${command[@]}" > /dev/null 2> /dev/null
      runs[$label]+="$(cat bench/data/.time)"$'\n'
    done
  done
  for label in "$@"; do
    printf '%s' "$label"
    for field in 1 2 3; do printf ' %s' "$(printf '%s' "${runs[$label]}" | awk -v f=$field 'NF { print $f }' | median)"; done
    echo
  done
}

# label seconds user rss bytes [base-seconds what]: a row with MB/s of input, and the multiple of
# another row's time when given
shape_row() {
  awk -v l="$1" -v s="$2" -v u="$3" -v r="$4" -v b="$5" -v base="${6:-}" -v what="${7:-}" 'BEGIN{
    printf "  %-32s %6.2f s (user %5.2f s) %6.0f MB/s  peak RSS %7.1f MB", l, s, u, b / 1e6 / s, r * 1.024 / 1000;
    if (base != "") printf "  %.2f x %s", s / base, what; print "" }'
}

# perf script text (read only) of two shapes, as the generator writes them: `perf`, random walks
# of a call graph from 4 threads whose stacks repeat, and `perf-random`, walks of a larger graph
# whose stacks rarely repeat. proftool and inferno-collapse-perf (its default: as many threads as
# cores) run in turn, MEDIAN rounds, as the folded shapes below; a row is the median, with the
# ratio of the medians. The reports follow on the first shape.
for shape in perf perf-random; do
  [ $# -gt 0 ] && [[ " $* " != *" $shape "* ]] && continue
  case $shape in
    perf) file=bench/data/big.perf generated=perf-script ;;
    perf-random) file=bench/data/big-random.perf generated=perf-random ;;
  esac
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$SIZE" ]; then
    "$gen" "$generated" "$SIZE" "$file"
  fi
  bytes=$(stat -c %s "$file")
  echo "$shape → folded: $file, $((bytes / 1000000)) MB, $(wc -l < "$file") lines; medians of $MEDIAN alternated runs ($(uptime | sed 's/.*load/load/'))"
  read -r s r < <(measure cat "$file");                                   row "cat" "$s" "$r" "$bytes"
  read -r s r < <(measure wc -l "$file");                                 row "wc -l" "$s" "$r" "$bytes"
  ours=("$bin" convert -q --from perf --to folded "$file" -) theirs=(inferno-collapse-perf "$file")
  labels=(ours)
  command -v inferno-collapse-perf > /dev/null && labels+=(theirs) || echo "  inferno-collapse-perf not found: install it with 'cargo install inferno' to compare"
  declare -A wall=() user=() rss=()
  while read -r label s u r; do wall[$label]=$s user[$label]=$u rss[$label]=$r; done < <(alternated "${labels[@]}")
  shape_row "proftool perf → folded" "${wall[ours]}" "${user[ours]}" "${rss[ours]}" "$bytes"
  if [ -n "${wall[theirs]:-}" ]; then
    shape_row "inferno-collapse-perf" "${wall[theirs]}" "${user[theirs]}" "${rss[theirs]}" "$bytes" "${wall[ours]}" "proftool's time"
    awk -v a="${wall[theirs]}" -v b="${wall[ours]}" 'BEGIN { if (b > 0) printf "  proftool/inferno throughput: %.2f x\n", a / b }'
  fi
  [ "$shape" = perf ] && reports perf "$file" "$bytes" "${wall[ours]}"
  unset wall user rss
done
if [[ " $* " == *" merge "* ]]; then
  # merge: 1,000 inputs of 1 MB (folded walks, each of other stacks), read one at a time: time and
  # peak RSS beside those of converting the merged result alone.
  mkdir -p bench/data/merge
  for i in $(seq 1000); do
    [ -f "bench/data/merge/$i.folded" ] || SEED=$i "$gen" folded-walks 1000000 "bench/data/merge/$i.folded" 2> /dev/null
  done
  "$bin" merge -q bench/data/merge/*.folded -o bench/data/merged.folded
  bytes=$(du -cb bench/data/merge/*.folded | tail -1 | cut -f1)
  echo "merge: 1000 folded inputs, $((bytes / 1000000)) MB; the merged result $(($(stat -c %s bench/data/merged.folded) / 1000000)) MB"
  read -r s r < <(measure "$bin" merge -q bench/data/merge/*.folded -o /dev/null --to folded); row "proftool merge 1000 inputs" "$s" "$r" "$bytes"
  read -r s r < <(measure "$bin" convert -q bench/data/merged.folded /dev/null --to folded); row "the merged result, converted" "$s" "$r" "$bytes"
fi
if [[ " $* " == *" diff "* ]]; then
  # diff of two 100 MB inputs beside reading each of them (info).
  [ -f bench/data/stacks.folded ] || "$gen" folded-stacks "$SIZE" bench/data/stacks.folded
  [ -f bench/data/stacks2.folded ] || SEED=2 "$gen" folded-stacks "$SIZE" bench/data/stacks2.folded
  bytes=$(( $(stat -c %s bench/data/stacks.folded) + $(stat -c %s bench/data/stacks2.folded) ))
  echo "diff: two folded-stacks inputs, $((bytes / 1000000)) MB together"
  read -r a ra < <(measure "$bin" info bench/data/stacks.folded)
  read -r b rb < <(measure "$bin" info bench/data/stacks2.folded)
  read -r s r < <(measure "$bin" diff -q bench/data/stacks.folded bench/data/stacks2.folded)
  row "reading both (info, each)" "$(awk -v a="$a" -v b="$b" 'BEGIN { print a + b }')" "$((ra > rb ? ra : rb))" "$bytes"
  row "proftool diff" "$s" "$r" "$bytes"
  awk -v d="$s" -v a="$a" -v b="$b" 'BEGIN { printf "  diff / reading both: %.2f x (the issue asks at most 2.5 x)\n", d / (a + b) }'
fi

# Issue 21's two folded shapes (bench/generate.rs, folded_shape): many distinct stacks (stacks) and
# random walks of a call graph (walks). Each round runs every command once, in turn, so that load
# from elsewhere falls on all of them alike; a row is the median of MEDIAN rounds (default 5) of
# wall time, user time and peak RSS. `bench/run.sh folded-stacks` runs one shape.
for shape in stacks walks; do
  [ $# -gt 0 ] && [[ " $* " != *" folded-$shape "* ]] && continue
  file=bench/data/$shape.folded
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$SIZE" ]; then "$gen" "folded-$shape" "$SIZE" "$file"; fi
  bytes=$(stat -c %s "$file")
  echo "folded-$shape: $file, $((bytes / 1000000)) MB, $(wc -l < "$file") lines; medians of $MEDIAN alternated runs ($(uptime | sed 's/.*load/load/'))"
  svg=("$bin" convert -q "$file" --to svg -) inferno=(inferno-flamegraph "$file") folded=("$bin" convert -q "$file" --to folded -)
  speedscope=("$bin" convert -q "$file" --to speedscope -) pprof=("$bin" convert -q "$file" --to pprof -)
  labels=(svg folded speedscope pprof)
  command -v inferno-flamegraph > /dev/null && labels+=(inferno) || echo "  inferno-flamegraph not found: install it with 'cargo install inferno' to compare"
  declare -A wall=() user=() rss=()
  while read -r label s u r; do wall[$label]=$s user[$label]=$u rss[$label]=$r; done < <(alternated "${labels[@]}")
  if [ -n "${wall[inferno]:-}" ]; then
    shape_row "inferno-flamegraph" "${wall[inferno]}" "${user[inferno]}" "${rss[inferno]}" "$bytes"
    shape_row "proftool convert --to svg" "${wall[svg]}" "${user[svg]}" "${rss[svg]}" "$bytes" "${wall[inferno]}" "inferno-flamegraph"
  else
    shape_row "proftool convert --to svg" "${wall[svg]}" "${user[svg]}" "${rss[svg]}" "$bytes"
  fi
  shape_row "proftool convert --to folded" "${wall[folded]}" "${user[folded]}" "${rss[folded]}" "$bytes"
  for to in speedscope pprof; do
    shape_row "proftool convert --to $to" "${wall[$to]}" "${user[$to]}" "${rss[$to]}" "$bytes" "${wall[folded]}" "--to folded"
  done
  unset wall user rss
done
rm -f bench/data/.time
