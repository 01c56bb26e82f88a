// libFuzzer target for the whole load path (scanner, decoder, builder, summary). Beyond "no
// crash", it checks the reader's main promise: the chunk size never changes the result.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/analysis/summary.h"
#include "core/trace/trace_reader.h"

namespace {
std::string load(const uint8_t* data, size_t size, size_t chunk, bool& failed) {
  ks::TraceReader r;
  for (size_t i = 0; i < size && !r.failed(); i += chunk)
    r.feed(reinterpret_cast<const char*>(data) + i, std::min(chunk, size - i));
  r.finish();
  failed = r.failed();
  return failed ? r.error() : ks::summary_json(r.model(), "f", r.error());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = 1 + data[0] % 61;  // the first byte picks a chunk size
  data += 1;
  size -= 1;
  bool failed_whole = false, failed_chunked = false;
  const std::string whole = load(data, size, size ? size : 1, failed_whole);
  const std::string chunked = load(data, size, chunk, failed_chunked);
  if (failed_whole != failed_chunked || whole != chunked) std::abort();
  return 0;
}
