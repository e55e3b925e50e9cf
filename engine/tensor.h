// The memory layout of phasor, said once: every matrix is row-major
// [tokens, features]. Eigen defaults to column-major, so all code uses these
// aliases instead of Eigen::MatrixXf.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "engine/aligned_allocator.h"

namespace phasor {

using MatRM = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapRM = Eigen::Map<MatRM>;             // a writable view, no copy
using ConstMapRM = Eigen::Map<const MatRM>;  // a read-only view, no copy

using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using MapRow = Eigen::Map<RowVec>;
using ConstMapRow = Eigen::Map<const RowVec>;

using ArrayF = Eigen::Array<float, Eigen::Dynamic, 1>;
using MapArray = Eigen::Map<ArrayF>;
using ConstMapArray = Eigen::Map<const ArrayF>;

// AlignedFloats and AlignedDoubles, the buffers of these views: aligned_allocator.h.

}  // namespace phasor
