#include "cli/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "core/trace/model_merge.h"

namespace ks {

GzipEnd inflate_file(std::FILE* f, size_t chunk, const std::function<char*(size_t)>& prepare,
                     const std::function<void(size_t)>& commit, const std::function<bool()>& stop) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return GzipEnd::kNoInflate;
  std::vector<unsigned char> in(1 << 20);
  bool stream_end = false;
  GzipEnd end = GzipEnd::kStopped;
  while (!stop()) {
    const size_t got = std::fread(in.data(), 1, in.size(), f);
    if (got == 0) {
      end = stream_end ? GzipEnd::kWhole : std::ferror(f) ? GzipEnd::kReadError : GzipEnd::kCutOff;
      break;
    }
    zs.next_in = in.data();
    zs.avail_in = static_cast<uInt>(got);
    while (zs.avail_in > 0 && !stop()) {
      if (stream_end) {  // concatenated gzip members: keep going, as gzip(1) does
        if (inflateReset(&zs) != Z_OK) break;
        stream_end = false;
      }
      char* out = prepare(chunk);
      zs.next_out = reinterpret_cast<Bytef*>(out);
      zs.avail_out = static_cast<uInt>(chunk);
      const int rc = inflate(&zs, Z_NO_FLUSH);
      const size_t produced = chunk - zs.avail_out;
      if (produced) commit(produced);
      if (rc == Z_STREAM_END) {
        stream_end = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        inflateEnd(&zs);
        return GzipEnd::kCorrupt;
      }
    }
  }
  inflateEnd(&zs);
  return end;
}

namespace {

unsigned g_read_jobs = 1;
// Below this many bytes per range a file is read in one: threads would cost more than they save.
constexpr uint64_t kMinRangeBytes = 64 << 10;

void input_error(TraceReader& r, bool gzip) {
  r.note_input_error(gzip ? TraceReader::InputError::kGzip : TraceReader::InputError::kRead);
}
void input_error(TraceTrimmer& t, bool gzip) { t.note_input_error(gzip); }

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

template <class Sink>
void read_gzip(std::FILE* f, Sink& reader, size_t chunk) {
  const GzipEnd end = inflate_file(
      f, chunk, [&](size_t n) { return reader.prepare(n); }, [&](size_t n) { reader.commit(n); },
      [&] { return reader.failed(); });
  if (end != GzipEnd::kWhole && end != GzipEnd::kStopped) input_error(reader, true);
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

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// Feeds `r` from file offset `from` until it stops at a split, fails or the file ends.
bool read_range(int fd, TraceReader& r, uint64_t from, size_t chunk) {
  uint64_t at = from;
  while (!r.failed() && !r.stopped()) {
    char* dst = r.prepare(chunk);
    const ssize_t got = ::pread(fd, dst, chunk, off_t(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) break;
    r.commit(size_t(got));
    at += uint64_t(got);
  }
  return true;
}

// One plain file in `jobs` ranges read by as many threads, merged into `reader` (finished).
// Returns false when the file is not one to split (gzip, small, no root seen): read it in one.
bool read_in_ranges(const std::string& path, TraceReader& reader, size_t chunk, unsigned jobs) {
  const FdCloser f{::open(path.c_str(), O_RDONLY)};
  struct stat st;
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || uint64_t(st.st_size) < kMinRangeBytes * jobs) return false;
  const uint64_t size = uint64_t(st.st_size);
  char head[4096];
  const ssize_t got = ::pread(f.fd, head, sizeof head, 0);
  if (got < 2 || (uint8_t(head[0]) == 0x1f && uint8_t(head[1]) == 0x8b)) return false;
  const int root = root_is_array(head, size_t(got));
  if (root < 0) return false;
  const std::vector<uint64_t> splits = propose_splits(size, int(jobs), [&](uint64_t off, char* buf, size_t n) {
    const ssize_t r = ::pread(f.fd, buf, n, off_t(off));
    return r > 0 ? size_t(r) : size_t(0);
  });
  if (splits.empty()) return false;
  std::atomic<bool> read_failed{false};
  std::vector<std::unique_ptr<TraceReader>> later;
  std::vector<TraceReader*> ptrs;
  for (size_t i = 0; i < splits.size(); ++i) {
    later.push_back(std::make_unique<TraceReader>());
    later.back()->start_at(splits[i], root == 1);
    later.back()->stop_at({splits.begin() + long(i) + 1, splits.end()});
    ptrs.push_back(later.back().get());
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < splits.size(); ++i)
    threads.emplace_back([&, i] {
      if (!read_range(f.fd, *later[i], splits[i], chunk)) read_failed = true;
      later[i]->finish();
    });
  reader.stop_at(splits);
  if (!read_range(f.fd, reader, 0, chunk)) read_failed = true;
  for (std::thread& t : threads) t.join();
  if (read_failed) {
    // A read error part-way: say so as one range would (the ranges' models are not trusted).
    later.clear();
    reader.note_input_error(TraceReader::InputError::kRead);
    reader.finish();
    return true;
  }
  const int merged = merge_ranges(reader, ptrs, [&](uint64_t from) {
    if (!read_range(f.fd, reader, from, chunk)) reader.note_input_error(TraceReader::InputError::kRead);
  });
  if (merged < 0) std::abort();  // pieces made in this process cannot be damaged
  return true;
}

}  // namespace

void set_read_jobs(unsigned jobs) { g_read_jobs = jobs < 1 ? 1 : jobs; }

std::string read_file_into(const std::string& path, TraceReader& reader, size_t chunk) {
  if (g_read_jobs > 1 && read_in_ranges(path, reader, chunk, g_read_jobs)) return "";
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

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::vector<std::string> folder_traces(const std::string& dir, std::string& error) {
  std::vector<std::string> named, other;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const std::string name = e.path().filename().string();
    if (ends_with(name, ".pt.trace.json") || ends_with(name, ".pt.trace.json.gz")) named.push_back(e.path().string());
    else if (ends_with(name, ".json") || ends_with(name, ".json.gz")) other.push_back(e.path().string());
  }
  if (ec) error = dir + ": " + ec.message();
  std::vector<std::string>& out = named.empty() ? other : named;
  std::sort(out.begin(), out.end());
  if (out.empty() && error.empty()) error = dir + ": no trace files in it";
  return out;
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, int& status, FolderLister list) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::string error;
    const std::vector<std::string> found = list(in, error);
    if (!error.empty()) {
      std::fprintf(stderr, "%s\n", error.c_str());
      status = 1;
    }
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

bool parse_trace_jobs(const char* command, const char* value, unsigned& jobs) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (*end || v < 1 || v > 1024) {
    std::fprintf(stderr, "kinetoscope %s: --jobs takes a whole number from 1 to 1024\n", command);
    return false;
  }
  jobs = unsigned(v);
  return true;
}

}  // namespace ks
