#pragma once
#include "core/util/bytes.h"
