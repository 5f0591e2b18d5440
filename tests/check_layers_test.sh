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
# With a build folder: an object of app/cli/ (or widgets/) calling a library function is refused, one
# using only app/core, value types' members and the enums' toString() passes.
rm "$tree/gpu/src/core/bad.cpp"
cxx=${CXX:-c++}
if command -v "$cxx" > /dev/null && command -v nm > /dev/null; then
  objects="$tree/build/app/CMakeFiles/spyglass-cli.dir/cli"
  mkdir -p "$objects"
  cat > "$tree/uses.cpp" <<'EOF'
namespace spyglass {
enum class Order { Rows };
const char* toString(Order);
struct Matrix { bool isBinary() const; };
namespace app { int luWithoutPivoting(const Matrix&); }
}
int use(const spyglass::Matrix& m) { return m.isBinary() + *spyglass::toString(spyglass::Order::Rows) + spyglass::app::luWithoutPivoting(m); }
EOF
  "$cxx" -c "$tree/uses.cpp" -o "$objects/ok.cpp.o"
  "$check" "$tree" "$tree/build" > /dev/null || { echo "FAIL: an object calling only app/core was refused"; exit 1; }
  cat > "$tree/calls.cpp" <<'EOF'
namespace spyglass { template <typename T> struct BitFlagMatrix {}; template <typename T> int bitFlagLu(const BitFlagMatrix<T>&); }
int call() { return spyglass::bitFlagLu(spyglass::BitFlagMatrix<double>{}); }
EOF
  "$cxx" -c "$tree/calls.cpp" -o "$objects/bad.cpp.o"
  if out=$("$check" "$tree" "$tree/build" 2>&1); then echo "FAIL: an object of app/cli/ calling the library passed"; exit 1; fi
  grep -q 'spyglass-cli.dir/cli/bad.cpp.o calls the compute library directly' <<< "$out" || { echo "FAIL: the offender is not named: $out"; exit 1; }
  grep -q 'bitFlagLu<double>' <<< "$out" || { echo "FAIL: the call is not named: $out"; exit 1; }
fi
echo "check-layers refuses widgets/, app/gui/ and app/cli/ including (or, built, calling) the library and core/ including io/'s private headers, and passes the clean tree"
