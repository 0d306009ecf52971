#!/usr/bin/env bash
# Prints a manifest of what proftool makes of every fixture: each output format's bytes and each
# report's text, as SHA-256 sums, one line each (stderr's warnings included). Run it before and
# after a change that must not change behaviour and compare the two:
#
#   bench/same-outputs.sh > /tmp/before.txt      # on the commit before
#   bench/same-outputs.sh > /tmp/after.txt       # on the change
#   diff /tmp/before.txt /tmp/after.txt          # nothing: byte-identical
#
#   PROFTOOL=path/to/proftool bench/same-outputs.sh [fixtures...]
set -euo pipefail
cd "$(dirname "$0")/.."
PROFTOOL=${PROFTOOL:-target/release/proftool}
[ -x "$PROFTOOL" ] || cargo build --release --quiet
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
if [ $# -gt 0 ]; then
    inputs=("$@")
else
    # The fixtures .ci/consumers converts: every input a reader takes (no bad inputs, programs or notes).
    mapfile -t inputs < <(find fixtures -type f ! -path '*/bad/*' ! -path 'fixtures/cli/*' ! -path 'fixtures/gate/*' \
        ! -name '*.dump' ! -name '*.syms.json' ! -name '*.err' ! -name '*.py' ! -name '*.sh' ! -name '*.go' ! -name '*.md' ! -name '*.txt' \
        ! -name '*.c' ! -name '*.js' ! -name '*.cpp' ! -name '*.h' ! -name '*.hs' ! -name '*.rb' ! -name '*.java' \
        ! -name '*.jfc' ! -name '*.class' ! -name '*.html' ! -name '*.pftrace' | sort)
fi
# One file name per written format (its first extension), from `proftool formats`.
mapfile -t targets < <("$PROFTOOL" formats | awk 'NR > 1 && $0 ~ / yes +yes | no +yes / { print $1 $2 }')
sum() { sha256sum | cut -c1-16; }
for input in "${inputs[@]}"; do
    for target in "${targets[@]}"; do
        name=${target%%.*}
        out="$OUT/out.${target#*.}"
        rm -f "$out"
        status=0
        "$PROFTOOL" convert --to "$name" "$input" "$out" 2> "$OUT/err" || status=$?
        # ghc-px's first line is the time it was written where the profile states none (as GHC's is).
        bytes=$( [ -f "$out" ] && { if [ "$name" = ghc-px ]; then tail -n +2 "$out"; else cat "$out"; fi; } | sum || echo none)
        printf '%s -> %s: exit %s, bytes %s, stderr %s\n' "$input" "$name" "$status" "$bytes" \
            "$(sed "s|$OUT|OUT|g" "$OUT/err" | sum)"
    done
    for report in info summary "summary --lines" tree data "summary --format json" "summary --format csv" "diff $input"; do
        status=0
        # shellcheck disable=SC2086
        "$PROFTOOL" $report "$input" > "$OUT/report" 2> "$OUT/err" || status=$?
        printf '%s | %s: exit %s, stdout %s, stderr %s\n' "$input" "$report" "$status" \
            "$(sum < "$OUT/report")" "$(sum < "$OUT/err")"
    done
done
