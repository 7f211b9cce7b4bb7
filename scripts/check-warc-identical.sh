#!/usr/bin/env bash
# Byte-identity check of the WARC path (issue 17's speed work): `paracap run` of two checkouts over the
# real crawls of ../shared/data/warc (all three together, again with one worker, each alone, and
# warcio's edge cases), then every output file compared byte for byte (datasets, parquet, stats.json,
# config, card); the reports only after their "Generated <time> in <s>" line is set aside.
#   scripts/check-warc-identical.sh /work/main [this-checkout]
set -euo pipefail
base="$(cd "$1" && pwd)"
this="$(cd "${2:-$(dirname "$0")/..}" && pwd)"
data="$(cd "$this/../shared/data/warc" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
runs() { # repo out
  local repo="$1" out="$2" f
  cd "$repo"
  node bin/paracap.js run --input "$data"/*.warc.gz --out "$out/all" --quiet > /dev/null
  node bin/paracap.js run --input "$data"/*.warc.gz --out "$out/all-w1" --workers 1 --quiet > /dev/null
  for f in "$data"/*.warc.gz; do node bin/paracap.js run --input "$f" --out "$out/$(basename "$f" .warc.gz)" --quiet > /dev/null; done
  # (damaged records make the run report damage on stderr: expected)
  node bin/paracap.js run --input $(ls "$data"/warcio-edge-cases/*.warc* | grep -v '\.bad$') --out "$out/edge" --quiet > /dev/null 2>&1 || true
}
runs "$base" "$tmp/base"
runs "$this" "$tmp/this"
cd "$tmp/base"
n=0
bad=0
for f in $(find . -type f | sort); do
  n=$((n + 1))
  case "$f" in
    */report.md | */report.html) same() { diff -q <(sed -E 's/Generated [0-9T:.Z-]+ in [0-9.]+ s/G/' "$1") <(sed -E 's/Generated [0-9T:.Z-]+ in [0-9.]+ s/G/' "$2") > /dev/null; } ;;
    *) same() { cmp -s "$1" "$2"; } ;;
  esac
  if [ ! -f "$tmp/this/$f" ] || ! same "$f" "$tmp/this/$f"; then
    echo "differs: $f"
    bad=$((bad + 1))
  fi
done
extra=$(cd "$tmp/this" && find . -type f | wc -l)
echo "$n files of $base compared with $this ($extra there): $bad differ"
[ "$bad" -eq 0 ] && [ "$extra" -eq "$n" ]
