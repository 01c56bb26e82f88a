#include "core/trace/model.h"
