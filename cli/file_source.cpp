#include "cli/file_source.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace ks {

namespace {

void input_error(TraceReader& r, bool gzip) {
  r.note_input_error(gzip ? TraceReader::InputError::kGzip : TraceReader::InputError::kRead);
}
void input_error(TraceTrimmer& t, bool gzip) { t.note_input_error(gzip); }

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

template <class Sink>
void read_gzip(std::FILE* f, Sink& reader, size_t chunk) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    input_error(reader, true);
    return;
  }
  std::vector<unsigned char> in(1 << 20);
  bool stream_end = false;
  while (!reader.failed()) {
    const size_t got = std::fread(in.data(), 1, in.size(), f);
    if (got == 0) {
      if (!stream_end) input_error(reader, true);  // cut off
      break;
    }
    zs.next_in = in.data();
    zs.avail_in = static_cast<uInt>(got);
    while (zs.avail_in > 0 && !reader.failed()) {
      if (stream_end) {  // concatenated gzip members: keep going, as gzip(1) does
        if (inflateReset(&zs) != Z_OK) break;
        stream_end = false;
      }
      char* out = reader.prepare(chunk);
      zs.next_out = reinterpret_cast<Bytef*>(out);
      zs.avail_out = static_cast<uInt>(chunk);
      const int rc = inflate(&zs, Z_NO_FLUSH);
      const size_t produced = chunk - zs.avail_out;
      if (produced) reader.commit(produced);
      if (rc == Z_STREAM_END) {
        stream_end = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        input_error(reader, true);  // corrupt
        inflateEnd(&zs);
        return;
      }
    }
  }
  inflateEnd(&zs);
}

template <class Sink>
std::string read_into(const std::string& path, Sink& reader, size_t chunk) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return "Cannot open " + path + ": " + std::strerror(errno) + ".";
  unsigned char magic[2] = {0, 0};
  const size_t n = std::fread(magic, 1, 2, f.get());
  std::rewind(f.get());
  if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    read_gzip(f.get(), reader, chunk);
  } else {
    while (!reader.failed()) {
      char* dst = reader.prepare(chunk);
      const size_t got = std::fread(dst, 1, chunk, f.get());
      if (got == 0) break;
      reader.commit(got);
    }
    if (std::ferror(f.get())) input_error(reader, false);
  }
  reader.finish();
  return "";
}

}  // namespace

std::string read_file_into(const std::string& path, TraceReader& reader, size_t chunk) {
  return read_into(path, reader, chunk);
}
std::string read_file_into(const std::string& path, TraceTrimmer& trimmer, size_t chunk) {
  return read_into(path, trimmer, chunk);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool load_trace(const std::string& path, TraceReader& reader) {
  const std::string open_problem = read_file_into(path, reader);
  const std::string error = open_problem.empty() ? reader.error() : open_problem;
  if (error.empty()) return true;
  std::fprintf(stderr, "%s: %s\n", base_name(path).c_str(), error.c_str());
  return false;
}

}  // namespace ks
