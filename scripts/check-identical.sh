#!/usr/bin/env bash
# Byte-identity check for the hot path (issue 21): runs `paracap run` of a checkout over the shipped
# samples, every dump and history in ../shared/data and the Conceptual Captions excerpt, and prints
# the sha256 of every dataset and of stats.json. Independent of the test suite on purpose.
#   scripts/check-identical.sh [repo-dir] > hashes.txt      # record
#   scripts/check-identical.sh [repo-dir] | diff scripts/check-identical.baseline.txt -   # compare
set -euo pipefail
repo="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
cd "$repo"   # inputs by relative path: stats.json records them
data=../shared/data
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run() { # name flag file
  local name="$1" flag="$2" file="$3" out="$tmp/$1"
  node "$repo/bin/paracap.js" run "$flag" "$file" --out "$out" --quiet --fresh > /dev/null 2>&1 || echo "$name exit=$?"
  for f in "$out"/*.jsonl "$out"/stats.json; do
    [ -e "$f" ] || continue
    echo "$name $(basename "$f") $(sha256sum < "$f" | cut -d' ' -f1)"
  done
  # the extracted references themselves (sorted: shard files are written in arrival order)
  echo "$name references $(cat "$out"/.work/extract/*/p-*.jsonl 2>/dev/null | LC_ALL=C sort | sha256sum | cut -d' ' -f1)"
}
run sample-articles --input "shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2"
run sample-history --history "shared/sample/enwiki-Anarchism-history-sample.xml.bz2"
for f in "$data"/wikipedia/*.xml "$data"/wikipedia/*.bz2; do run "$(basename "$f")" --input "$f"; done
for f in "$data"/wikipedia-history/*.bz2; do run "$(basename "$f")" --history "$f"; done
for f in "$data"/conceptual-captions/*.tsv; do run "$(basename "$f")" --input "$f"; done
