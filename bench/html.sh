#!/usr/bin/env bash
# The HTML page's figures (docs/performance.md): a profile of a million nodes, its page's size and
# the time headless Chromium takes from navigation to the page's first drawing (the script's
# mark `proftool-drawn`: the graph, the table and the search drawn once), the median of RUNS (5);
# and the page of a 100 MB folded input, its size beside the input's. Not a test.
# Needs chromium (Debian) and puppeteer-core (npm; installed under target/bench-html on first run);
# with SPEEDSCOPE=…/speedscope/dist/release, the page beside speedscope's app too.
#   bench/html.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release --bin proftool --example generate
work=target/bench-html
mkdir -p "$work"
target/release/examples/generate folded 1 "$work/million.folded" 1000000
target/release/examples/generate folded-walks 100000000 "$work/walks.folded"
for name in million walks; do
  /usr/bin/time -f "$name: convert to html %e s, %M KB" target/release/proftool convert -q "$work/$name.folded" "$work/$name.html"
  echo "$name: folded $(stat -c %s "$work/$name.folded") bytes, html $(stat -c %s "$work/$name.html") bytes"
done
[ -d "$work/node/node_modules/puppeteer-core" ] ||
  (mkdir -p "$work/node" && cd "$work/node" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --no-audit --no-fund puppeteer-core@23.11.1)
node bench/html-paint.mjs "$work/node" "$(command -v chromium)" "${RUNS:-5}" "$work/million.html" "$work/walks.html"
# Beside speedscope's app, where SPEEDSCOPE names its release folder (`npm install speedscope`:
# node_modules/speedscope/dist/release): issue 46's three shapes, a generated tree of 1,000,000 and
# of 3,600,000 nodes and 200 MB of folded random walks (3.9 M nodes), the same folded stacks for both.
if [ -n "${SPEEDSCOPE:-}" ]; then
  target/release/examples/generate folded 1 "$work/large.folded" 3600000
  target/release/examples/generate folded-walks 200000000 "$work/walks200.folded"
  for name in million large walks200; do
    target/release/proftool convert -q "$work/$name.folded" "$work/$name.html"
    node bench/html-speedscope.mjs "$work/node" "$(command -v chromium)" "$SPEEDSCOPE" "$work/$name.folded" "$work/$name.html"
  done
fi
