#include "core/trace/model.h"
#include "cli/options.h"
