#include "cli/options.h"
#include "core/analysis/op_tree.h"
  #  include "wasm/bindings.h"
