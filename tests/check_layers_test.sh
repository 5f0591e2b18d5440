#!/usr/bin/env bash
# scripts/check-layers refuses what it must: a widget that includes the compute library, a file left
# on the allowed list after it stopped including it, and a gpu/src folder other than io/ including an
# io/ private header; a tree that keeps the rules passes.
set -euo pipefail
check=$(cd "$(dirname "$0")/.." && pwd)/scripts/check-layers
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/widgets" "$tree/app/cli" "$tree/scripts"
echo '#include "core/matrixdocument.h"' > "$tree/widgets/ok.cpp"
echo '#include "spyglass/matrix.h"' > "$tree/app/cli/listed.cpp"
echo 'app/cli/listed.cpp' > "$tree/scripts/check-layers.allowed"
"$check" "$tree" > /dev/null || { echo "FAIL: a tree that keeps the rule was refused"; exit 1; }
echo '  #  include <spyglass/backend.h>' > "$tree/widgets/bad.cpp"
if out=$("$check" "$tree" 2>&1); then echo "FAIL: a widget including spyglass/ passed"; exit 1; fi
grep -q 'widgets/bad.cpp includes the compute library' <<< "$out" || { echo "FAIL: the offender is not named: $out"; exit 1; }
rm "$tree/widgets/bad.cpp"
echo '#include "core/appinfo.h"' > "$tree/app/cli/listed.cpp"
if out=$("$check" "$tree" 2>&1); then echo "FAIL: a stale allowed entry passed"; exit 1; fi
grep -q 'remove it from' <<< "$out" || { echo "FAIL: the stale entry is not named: $out"; exit 1; }
echo '#include "spyglass/matrix.h"' > "$tree/app/cli/listed.cpp"
mkdir -p "$tree/gpu/src/core" "$tree/gpu/src/io"
echo '#include "core/hugepages.h"' > "$tree/gpu/src/io/reader.cpp"
"$check" "$tree" > /dev/null || { echo "FAIL: io/ using a core/ helper was refused"; exit 1; }
echo '#include "io/zip_archive.h"' > "$tree/gpu/src/core/bad.cpp"
if out=$("$check" "$tree" 2>&1); then echo "FAIL: core/ including an io/ private header passed"; exit 1; fi
grep -q 'gpu/src/core/bad.cpp includes a private header of gpu/src/io' <<< "$out" || { echo "FAIL: the offender is not named: $out"; exit 1; }
echo "check-layers refuses all three and passes the clean tree"
