// `kinetoscope diff`: the Diff view of two traces, and a regression gate for CI.
#pragma once

namespace ks {
// argv: the arguments after "diff". Exit status: 0, 1 (a trace did not load), 2 (usage),
// 3 (--fail-if-slower: the experiment is slower by more than allowed).
int run_diff_command(int argc, char** argv, const char* usage);
}  // namespace ks
