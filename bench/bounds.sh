#!/usr/bin/env bash
# Bounds (not a test): each writer on each shape that once grew faster than its input (issue 48),
# at two sizes, the second double the first: input size, CPU time (user + system), peak RSS
# (/usr/bin/time), output size and exit status, and for a refusal the limit and flag it names. A
# row is linear where doubling the input at most doubles time and memory (±25 %), or where both
# sizes stop at the same limit. Prints a Markdown table (docs/performance.md, "Bounds").
#
#   bench/bounds.sh                      # every shape
#   bench/bounds.sh chain evented        # some
#   PROFTOOL=path/to/proftool bench/bounds.sh
#
# Inputs are made by bench/bounds.py into bench/data/bounds/ (kept); outputs go to a temporary
# folder, removed at the end. The one huge line and the endless stream are read from a pipe.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFTOOL=${PROFTOOL:-target/release/proftool}
[ -x "$PROFTOOL" ] || cargo build --release --quiet
DATA=bench/data/bounds
mkdir -p "$DATA"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# shape: base size, file extension, targets
declare -A SIZE=([siblings]=1000000 [chain]=100000 [unclosed]=40000 [diamonds]=16 [evented]=100000 [zeros]=1073741824 [bomb]=2147483648)
declare -A EXT=([siblings]=folded [chain]=folded [unclosed]=trace.json [diamonds]=callgrind [evented]=speedscope.json [zeros]=folded [bomb]=folded.gz)
WRITERS="folded svg pb.gz br speedscope.json html"
SHAPES=${*:-siblings chain unclosed diamonds evented zeros bomb}

echo "| shape | n | input | target | exit | CPU s | peak RSS | output | refusal |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---|"
for shape in $SHAPES; do
    for factor in 1 2; do
        n=$(( ${SIZE[$shape]} * factor ))
        input="$DATA/$shape-$n.${EXT[$shape]}"
        case $shape in
            zeros) input="(a pipe)" ;;
            *) [ -s "$input" ] || python3 bench/bounds.py "$shape" "$n" "$input" ;;
        esac
        targets=$WRITERS
        case $shape in zeros | bomb) targets=folded ;; esac
        for target in $targets; do
            out="$OUT/out.$target"
            rm -f "$out"
            if [ "$shape" = zeros ]; then
                size=$n
                set +e
                head -c "$n" /dev/zero | tr '\0' '0' | /usr/bin/time -f '%U %S %M' -o "$OUT/time" \
                    "$PROFTOOL" convert -q --from folded - "$out" 2> "$OUT/err"
                status=${PIPESTATUS[2]}
                set -e
            else
                size=$(stat -c %s "$input")
                set +e
                /usr/bin/time -f '%U %S %M' -o "$OUT/time" "$PROFTOOL" convert -q "$input" "$out" 2> "$OUT/err"
                status=$?
                set -e
            fi
            read -r user sys rss < <(tail -1 "$OUT/time")
            cpu=$(echo "$user + $sys" | bc)
            written=$( [ -f "$out" ] && stat -c %s "$out" || echo "none")
            refusal=$(grep -o 'more than [^:]*\|lines of at most [0-9]* bytes\|a tree of at most [0-9]* nodes\|decompress[^;]*\|--max-[a-z-]* [A-Z]*' "$OUT/err" | head -2 | tr '\n' ' ' || true)
            [ "$status" = 0 ] && refusal=""
            [ "$status" != 0 ] && [ -z "$refusal" ] && refusal=$(head -c 160 "$OUT/err")
            printf '| %s | %s | %s | %s | %s | %s | %s MB | %s | %s |\n' "$shape" "$n" "$size" "$target" "$status" \
                "$cpu" "$(( rss / 1024 ))" "$written" "$refusal"
        done
    done
done
