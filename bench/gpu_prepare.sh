#!/usr/bin/env bash
# Prepare .gpubench/ for bench/gpu.sh (run HERE, on a machine with lastz and ../shared).
#
#   bash bench/gpu_prepare.sh            # then, with the device tool:
#   run(command="bash bench/gpu.sh", carry=[".gpubench"], timeout_s=540)
#
# The device machine has no network, no lastz and no ../shared, so this copies the
# genome pairs, a lastz binary (Debian's package, `apt-get download lastz` + `dpkg -x`,
# else the installed /usr/bin/lastz) and lastz's outputs for every parity case into
# .gpubench/ (ignored through .git/info/exclude), about 12 MB.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST=$REPO/.gpubench
PAIRS=${PAIRS:-$REPO/../shared/data/pairs}

die() { echo "gpu_prepare: $*" >&2; exit 1; }

[ -d "$PAIRS" ] || die "no genome pairs at $PAIRS (set PAIRS=...)"
command -v lastz >/dev/null || die "lastz is not installed here (apt-get install lastz)"

# cases: name | options.  The first three are timed by gpu.sh; all are parity-checked.
CASES=(
  "dmel2R_vs_dpse_contigs|--nogfextend"
  "lastz_pseudocat_vs_pseudopig|--nogfextend"
  "ecoli_K12_vs_salmonella_LT2|"
  "mito_human_orang|"
  "mito_human_orang|--nogfextend"
  "mito_human_mouse|"
  "dwv_vs_vdv1|"
  "dengue1_vs_dengue2|"
  "hpylori_26695_vs_J99_Eslice|"
)

mkdir -p "$DEST/pairs" "$DEST/lastz" "$DEST/bin"
if [ -d "$REPO/.git/info" ] || mkdir -p "$REPO/.git/info" 2>/dev/null; then
  grep -qxF '/.gpubench/' "$REPO/.git/info/exclude" 2>/dev/null \
    || echo '/.gpubench/' >> "$REPO/.git/info/exclude"
fi

# --- lastz binary for the device ------------------------------------------------------
if [ ! -x "$DEST/bin/lastz" ]; then
  tmp=$(mktemp -d)
  if (cd "$tmp" && apt-get download lastz >/dev/null 2>&1 && dpkg -x lastz_*.deb pkg \
        && [ -x pkg/usr/bin/lastz ]); then
    cp "$tmp/pkg/usr/bin/lastz" "$DEST/bin/lastz"
    echo "lastz: from $(ls "$tmp"/lastz_*.deb | xargs -n1 basename)"
  else
    cp "$(command -v lastz)" "$DEST/bin/lastz"
    echo "lastz: copied $(command -v lastz) (apt-get download failed)"
  fi
  rm -rf "$tmp"
fi
"$DEST/bin/lastz" --version 2>&1 | head -2 || true

# --- pairs and lastz outputs -----------------------------------------------------------
: > "$DEST/cases.tsv"
for c in "${CASES[@]}"; do
  name=${c%%|*}
  opts=${c#*|}
  [ -f "$PAIRS/$name/target.fa" ] || die "missing $PAIRS/$name/target.fa"
  mkdir -p "$DEST/pairs/$name"
  cp -f "$PAIRS/$name/target.fa" "$PAIRS/$name/query.fa" "$DEST/pairs/$name/"
  tag=$name$(echo "$opts" | tr -d ' =-' | sed 's/^\(.\)/_\1/')
  if [ ! -s "$DEST/lastz/$tag.out" ]; then
    start=$(date +%s%3N)
    # shellcheck disable=SC2086
    (cd "$DEST" && lastz "pairs/$name/target.fa" "pairs/$name/query.fa" $opts > "lastz/$tag.out")
    end=$(date +%s%3N)
    echo "lastz $tag: $(( (end - start) / 1000 )) s here"
  fi
  printf '%s\t%s\t%s\n' "$tag" "$name" "$opts" >> "$DEST/cases.tsv"
done
echo "prepared $(du -sh "$DEST" | cut -f1) in $DEST ($(wc -l < "$DEST/cases.tsv") cases)"
