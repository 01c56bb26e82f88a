#pragma once
#include "core/analysis/rules.h"
