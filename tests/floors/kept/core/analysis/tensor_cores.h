#pragma once
#include "core/analysis/op_tree.h"
#include "core/analysis/rules.h"
