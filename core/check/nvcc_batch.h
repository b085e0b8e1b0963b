#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/check/nvcc_check.h"
#include "corpus/check_store.h"

namespace mine::check {

// Compiles every CUDA C kernel with nvcc_check on `jobs` threads (0: one per core) and writes
// one result row per kernel to `results` (JSON Lines, run_bundle.py's format) as they finish,
// with progress on stderr unless `quiet`.
void check_with_nvcc(const std::string& nvcc, const std::vector<CheckKernel>& kernels, const NvccLimits& limits,
                     int jobs, const std::filesystem::path& work_dir, const std::string& results, bool quiet);

}  // namespace mine::check
