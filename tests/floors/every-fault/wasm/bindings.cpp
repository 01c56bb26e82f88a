#include "wasm/bindings.h"
#include "core/util/bytes.h"
