// Feeds a file to a TraceReader in 4 MB chunks, the way the worker does: gzip is recognised by
// its magic bytes (not the name) and inflated on the fly.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/session/session.h"
#include "core/trace/trace_reader.h"
#include "core/trace/trace_trimmer.h"

namespace ks {

// Returns an empty string when the file could be opened, else one sentence. A gzip or read
// failure part-way is recorded in the reader's health (what came before stays loaded).
std::string read_file_into(const std::string& path, TraceReader& reader, size_t chunk_bytes = 4 << 20);
// The same bytes into a trimmer (finish() included).
std::string read_file_into(const std::string& path, TraceTrimmer& trimmer, size_t chunk_bytes = 4 << 20);

// How a gzip stream read by inflate_file ended: whole (every member to its end, then the file's
// end), stopped (stop() said so), cut off, corrupt, a read error, or zlib would not start.
enum class GzipEnd { kWhole, kStopped, kCutOff, kCorrupt, kReadError, kNoInflate };
// Inflates f from where it stands (concatenated members read on, as gzip(1) does) into buffers of
// `chunk` bytes that prepare(chunk) gives and commit(n) hands on, until the file ends or stop():
// the one gunzip loop of the CLI's readers (traces, trimming, snapshots).
GzipEnd inflate_file(std::FILE* f, size_t chunk, const std::function<char*(size_t)>& prepare,
                     const std::function<void(size_t)>& commit, const std::function<bool()>& stop);

// Threads that read one plain (not gzip) file, in byte ranges merged into one model
// (core/trace/model_merge.h); 1: one range. Gzip is always read in one: its stream cannot be
// entered part-way.
void set_read_jobs(unsigned jobs);

// The file name of a path (what the CLI names a trace by in its messages).
std::string base_name(const std::string& path);
// The traces of a folder, sorted: its trace-named files (*.pt.trace.json[.gz]), else its
// .json/.json.gz files (not recursive); `error` says why none (unreadable, no trace in it).
std::vector<std::string> folder_traces(const std::string& dir, std::string& error);
// The files the inputs name: a folder's as `list` finds them (folder_traces by default), any other
// input as it is. A folder `list` says a problem of is said on stderr and makes `status` 1.
using FolderLister = std::vector<std::string> (*)(const std::string& dir, std::string& error);
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, int& status,
                                       FolderLister list = &folder_traces);
// The `--jobs N` of a command that reads N traces at a time: false, said on stderr as `command`'s,
// when `value` is not a whole number from 1 to 1024.
bool parse_trace_jobs(const char* command, const char* value, unsigned& jobs);

// Reads each of `files` into a TraceReader of its own on `jobs` threads (this one among them) and
// calls fn(i, reader) while the reader lives, so at most `jobs` models are held at once. Returns
// per file why it could not be read ("" when fn was called).
template <class F>
std::vector<std::string> read_each_in_threads(const std::vector<std::string>& files, unsigned jobs, F&& fn) {
  std::vector<std::string> errors(files.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < files.size();) {
      TraceReader reader;
      const std::string open_problem = read_file_into(files[i], reader);
      errors[i] = open_problem.empty() ? reader.error() : open_problem;
      if (errors[i].empty()) fn(i, reader);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<size_t>(jobs, files.size()); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return errors;
}

// Reads a whole trace; on failure says why on stderr ("<file>: <sentence>") and returns false.
bool load_trace(const std::string& path, TraceReader& reader);

// Calls fn(file name, session) for each trace that loads into a Session (tb_plugin mode when
// `tb`); 1 if one did not (said on stderr), else 0.
template <class F>
int for_each_session(const std::vector<std::string>& files, bool tb, F&& fn) {
  int status = 0;
  for (const std::string& path : files) {
    Session session({tb});
    if (!load_trace(path, session.reader())) {
      status = 1;
      continue;
    }
    fn(base_name(path), session);
  }
  return status;
}

}  // namespace ks
