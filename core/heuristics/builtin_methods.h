#pragma once
// Factories for the methods the registry lists (internal to core/heuristics).
#include <memory>

#include "core/heuristics/method.h"

namespace doppler::builtin {

std::unique_ptr<Method> criticalPath();
std::unique_ptr<Method> heft();
std::unique_ptr<Method> cpop();
std::unique_ptr<Method> etf();
std::unique_ptr<Method> roundRobin();
std::unique_ptr<Method> random();
std::unique_ptr<Method> loadBalance();
std::unique_ptr<Method> singleDevice();
std::unique_ptr<Method> localSearch();

}  // namespace doppler::builtin
