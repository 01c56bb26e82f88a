// The CLI's generic view command (cli/view_command.cpp): any view of core/session/views.h
// printed from its answer, so that a view needs no command of its own.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/session/views.h"

// The registered view called `name`, or null.
const ks::ViewDef* find_view(std::string_view name);
// The usage of the views without a command of their own: those `usage` (the CLI's) does not
// name as "kinetoscope VIEW ".
std::string views_usage(std::string_view usage);
// `kinetoscope VIEW [--json|--csv] [--PARAM VALUE]... TRACE...` (argv after the command).
int run_view_command(const ks::ViewDef& view, int argc, char** argv, const char* usage);
