#!/usr/bin/env bash
# Prints a checksum of every output proftool writes, for every fixture into every writable format
# and for the bench inputs into folded, pprof, speedscope and their own format (the folded shapes
# also into svg), so that two builds
# can be compared byte for byte (a change that must not change behaviour, such as moving code
# between layers):
#
#   bench/outputs.sh > before.txt; (change, rebuild); bench/outputs.sh > after.txt; diff before.txt after.txt
#
# A -px file's first line is the time it was written when the source has none: it is left out.
# Bench inputs are made by the bench generator at SIZE bytes (default 100 MB) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100000000}
cargo build --release --quiet --bin proftool --example generate
bin=target/release/proftool
gen=target/release/examples/generate

# checksum FILE FORMAT: the sha256 of FILE converted to FORMAT, and the exit code when it failed
checksum() {
  local rc=0
  "$bin" convert -q --max-samples 100000000 --to "$2" "$1" bench/data/.out 2>/dev/null || rc=$?
  if [ "$rc" = 0 ]; then
    sum=$({ if [ "$2" = ghc-px ]; then tail -n +2 bench/data/.out; else cat bench/data/.out; fi; } | sha256sum)
    echo "$1 -> $2: ${sum%% *}"
  else
    echo "$1 -> $2: exit $rc"
  fi
  rm -f bench/data/.out
}

mkdir -p bench/data
writable=$("$bin" formats | awk 'NR > 1 { for (i = 2; i < NF; i++) if ($i == "yes" || $i == "no") break; if ($(i + 1) == "yes") print $1 }')
for file in fixtures/*/*; do
  [ -f "$file" ] || continue
  case $file in *.dump | *.err | *.py | *.md) continue ;; esac
  for to in $writable; do checksum "$file" "$to"; done
done

for entry in lispworks:tree ghc-px:px dyalog-csv:csv dyalog-xml:xml; do
  name=${entry%%:*} file=bench/data/big.${entry#*:}
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$SIZE" ]; then "$gen" "$name" "$SIZE" "$file"; fi
  for to in folded pprof speedscope "$name"; do checksum "$file" "$to"; done
done

# the two folded shapes of issue 21, into every writer of whole stacks and the flame graph
for shape in stacks walks; do
  file=bench/data/$shape.folded
  if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$SIZE" ]; then "$gen" "folded-$shape" "$SIZE" "$file"; fi
  for to in folded pprof speedscope svg; do checksum "$file" "$to"; done
done
