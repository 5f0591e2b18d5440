#!/usr/bin/env bash
# scripts/check-layers refuses what it must: a widget that includes the compute library, and a file
# left on the allowed list after it stopped including it; a tree that keeps the rule passes.
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
echo "check-layers refuses both and passes the clean tree"
