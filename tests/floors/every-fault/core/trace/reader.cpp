#include "reader.h"
