#include "core/analysis/op_tree.h"
#include "core/analysis/rules.h"
#include "core/util/bytes.h"
