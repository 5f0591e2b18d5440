#!/usr/bin/env bash
# scripts/check-layers refuses what it must: a widget, a window file or a command of spyglass-cli that
# includes the compute library; a tree that keeps the rule passes.
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
echo "check-layers refuses widgets/, app/gui/ and app/cli/ including the library and passes the clean tree"
