#include "core/util/bytes.h"

// util reaching up into trace
#include "core/trace/model.h"
