#pragma once
#include "core/analysis/op_tree.h"
