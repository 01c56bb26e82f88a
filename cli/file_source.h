// Feeds a file to a TraceReader in 4 MB chunks, the way the worker does: gzip is recognised by
// its magic bytes (not the name) and inflated on the fly.
#pragma once
#include <string>
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

// Threads that read one plain (not gzip) file, in byte ranges merged into one model
// (core/trace/model_merge.h); 1: one range. Gzip is always read in one: its stream cannot be
// entered part-way.
void set_read_jobs(unsigned jobs);

// The file name of a path (what the CLI names a trace by in its messages).
std::string base_name(const std::string& path);
// The traces of a folder, sorted: its trace-named files (*.pt.trace.json[.gz]), else its
// .json/.json.gz files (not recursive); `error` says why none (unreadable, no trace in it).
std::vector<std::string> folder_traces(const std::string& dir, std::string& error);
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
