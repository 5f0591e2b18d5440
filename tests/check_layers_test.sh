#!/usr/bin/env bash
# scripts/check-layers refuses what it must: a widget, a window file or a command of spyglass-cli that
# includes the compute library, and a gpu/src folder other than io/ including an io/ private header;
# a tree that keeps the rules passes.
set -euo pipefail
check=$(cd "$(dirname "$0")/.." && pwd)/scripts/check-layers
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/widgets" "$tree/app/cli" "$tree/app/gui" "$tree/app/core"
echo '#include "core/matrixdocument.h"' > "$tree/widgets/ok.cpp"
echo '#include "spyglass/matrix.h"' > "$tree/app/core/carries.h"
"$check" "$tree" > /dev/null || { echo "FAIL: a tree that keeps the rule was refused"; exit 1; }
for bad in widgets/bad.cpp app/gui/bad.cpp app/cli/bad.h; do
  echo '  #  include <spyglass/backend.h>' > "$tree/$bad"
  if out=$("$check" "$tree" 2>&1); then echo "FAIL: $bad including spyglass/ passed"; exit 1; fi
  grep -q "$bad includes the compute library" <<< "$out" || { echo "FAIL: the offender is not named: $out"; exit 1; }
  rm "$tree/$bad"
done
mkdir -p "$tree/gpu/src/core" "$tree/gpu/src/io"
echo '#include "core/hugepages.h"' > "$tree/gpu/src/io/reader.cpp"
"$check" "$tree" > /dev/null || { echo "FAIL: io/ using a core/ helper was refused"; exit 1; }
echo '#include "io/zip_archive.h"' > "$tree/gpu/src/core/bad.cpp"
if out=$("$check" "$tree" 2>&1); then echo "FAIL: core/ including an io/ private header passed"; exit 1; fi
grep -q 'gpu/src/core/bad.cpp includes a private header of gpu/src/io' <<< "$out" || { echo "FAIL: the offender is not named: $out"; exit 1; }
echo "check-layers refuses widgets/, app/gui/ and app/cli/ including the library and core/ including io/'s private headers, and passes the clean tree"
