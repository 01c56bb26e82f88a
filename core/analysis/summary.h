// The summary view: what a file is (schema, devices, distributed setup, span), what it holds
// (events per category, phase and kind) and how healthy it is. Feeds the page's first screen
// and `kinetoscope summary`.
#pragma once
#include <string>
#include <string_view>

#include "core/trace/trace_model.h"

namespace ks {

// The summary object of docs/contracts.md. `error` non-empty means "not a trace".
std::string summary_json(const TraceModel& model, std::string_view file_name, std::string_view error);

// The same, for people.
std::string summary_text(const TraceModel& model, std::string_view file_name, std::string_view error);

}  // namespace ks
