#pragma once
#include "core/trace/model.h"
