// Feeds a file to a TraceReader in 4 MB chunks, the way the worker does: gzip is recognised by
// its magic bytes (not the name) and inflated on the fly.
#pragma once
#include <string>

#include "core/trace/trace_reader.h"

namespace ks {

// Returns an empty string on success, else one sentence about the I/O or gzip problem (the
// reader then holds whatever was complete before it).
std::string read_file_into(const std::string& path, TraceReader& reader, size_t chunk_bytes = 4 << 20);

}  // namespace ks
