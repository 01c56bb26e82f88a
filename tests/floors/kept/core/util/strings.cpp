#include "core/util/bytes.h"
#include "simdjson.h"
