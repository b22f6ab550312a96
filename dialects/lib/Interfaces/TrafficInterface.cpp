//===- TrafficInterface.cpp - What a stage moves --------------------------===//

#include "snapflow/Interfaces/TrafficInterface.h"

#include "snapflow/Interfaces/TrafficInterface.cpp.inc"
