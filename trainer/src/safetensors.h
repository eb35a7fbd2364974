// The safetensors reader lives in native/formats/safetensors.h, shared with `swe convert --from
// model2vec` (one reader for both); these names keep the trainer's code unchanged.
#pragma once

#include "formats/safetensors.h"

namespace swe::trainer {

using formats::BFloat16ToFloat;
using formats::HalfToFloat;
using formats::SafeTensors;
using formats::StDType;
using formats::StDTypeName;
using formats::StDTypeSize;
using formats::StTensor;

}  // namespace swe::trainer
