#pragma once
#include <string>

namespace mine {

// Headers a unit's types need that a real build had from somewhere else (a precompiled header, an
// include of an include the repository does not hold): `uint32_t` needs <cstdint> and `half`
// <cuda_fp16.h> when nvcc compiles only device code, whatever the host compiler would have seen.
// The `#include` lines to put before `unit`, one per header it needs and does not include.
std::string implied_includes(const std::string& unit);

}  // namespace mine
