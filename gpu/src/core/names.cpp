// Printable names of the library's enumerations.
#include "spyglass/backend.h"
#include "spyglass/matrix.h"

namespace spyglass {

const char* toString(Layout layout) { return layout == Layout::Array ? "array" : "coordinate"; }

const char* toString(Field field) {
    switch (field) {
    case Field::Real: return "real";
    case Field::Double: return "double";
    case Field::Integer: return "integer";
    case Field::Complex: return "complex";
    case Field::Pattern: return "pattern";
    }
    return "?";
}

const char* toString(Symmetry symmetry) {
    switch (symmetry) {
    case Symmetry::General: return "general";
    case Symmetry::Symmetric: return "symmetric";
    case Symmetry::SkewSymmetric: return "skew-symmetric";
    case Symmetry::Hermitian: return "hermitian";
    }
    return "?";
}

const char* toString(BackendKind kind) {
    switch (kind) {
    case BackendKind::Reference: return "cpu";
    case BackendKind::Cuda: return "cuda";
    case BackendKind::Vendor: return "vendor";
    }
    return "?";
}

} // namespace spyglass
