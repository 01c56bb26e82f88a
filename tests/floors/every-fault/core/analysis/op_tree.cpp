#include "core/analysis/op_tree.h"
#include "core/analysis/tensor_cores.h"
