#!/bin/sh
# The false alarms and power of `proftool diff`'s default gate, by simulation: 1,000 pairs of
# profiles a row drawn from a real profile's stacks (docs/gate.md has the figures and the method).
#   bench/gate.sh [PAIRS]
set -eu
cd "$(dirname "$0")/.."
exec cargo run --quiet --release --example gate-simulation -- "${1:-1000}"
