#include "core/analysis/op_tree.h"
#include "simdjson.h"
