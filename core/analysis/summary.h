// The summary view: what a file is (schema, devices, distributed setup, span), what it holds
// (events per category, phase and kind) and how healthy it is. Feeds the page's first screen
// and `kinetoscope summary`.
#pragma once
#include <string>
#include <string_view>

#include "core/trace/trace_model.h"

namespace ks {

// The summary for people (`kinetoscope summary`); `error` non-empty means "not a trace". Its
// --json and the page's summary are the summary view's answer (core/session/views/summary.cpp).
std::string summary_text(const TraceModel& model, std::string_view file_name, std::string_view error);

}  // namespace ks
