// Reading and writing an index's documents (schema IndexDocs); used by Index::Save and Index::Load.
#pragma once

#include <functional>

#include "swe.capnp.h"
#include "swe/index_docs.h"
#include "swe/model_file.h"
#include "swe/status.h"

namespace swe {

void WriteIndexDocs(const IndexDocs& docs, schema::IndexDocs::Builder out);
// Validates and reads `in`; `has_entry` says whether an id is an entry of the index.
Status ReadIndexDocs(schema::IndexDocs::Reader in, const ReadLimits& limits,
                     const std::function<bool(uint64_t)>& has_entry, IndexDocs* out);

}  // namespace swe
