#include "cli/options.h"
#include "core/analysis/tensor_cores.h"
#include "core/util/bytes.h"
