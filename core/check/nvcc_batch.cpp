#include "core/check/nvcc_batch.h"

#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "core/error.h"

namespace mine::check {

void check_with_nvcc(const std::string& nvcc, const std::vector<CheckKernel>& kernels, const NvccLimits& limits,
                     int jobs, const std::filesystem::path& work_dir, const std::string& results, bool quiet) {
  std::ofstream out(results, std::ios::binary | std::ios::trunc);
  if (!out) throw Error::in(results, "cannot write the results file");
  std::string version = nvcc_version(nvcc);
  size_t threads = jobs > 0 ? static_cast<size_t>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, kernels.size());
  std::atomic<size_t> next{0};
  std::mutex lock;
  size_t done = 0;
  std::exception_ptr failure;
  auto work = [&] {
    for (size_t i; (i = next++) < kernels.size();) {
      const CheckKernel& k = kernels[i];
      nlohmann::json row;
      try {
        CudaUnit unit{k.id, k.name, k.standalone};
        if (k.meta.is_object() && k.meta.contains("build_defines_left_out"))
          unit.build_defines_left_out = k.meta["build_defines_left_out"];
        row = nvcc_check(nvcc, unit, limits, work_dir.string());
      } catch (...) {
        std::lock_guard<std::mutex> g(lock);
        if (!failure) failure = std::current_exception();
        next = kernels.size();
        return;
      }
      if (!version.empty()) row["nvcc_version"] = version;
      std::lock_guard<std::mutex> g(lock);
      out << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      out.flush();
      ++done;
      if (!quiet)
        std::cerr << "[" << done << "/" << kernels.size() << "] k" << k.id << " " << row["status"].get<std::string>()
                  << " compile" << (row["error_class"].is_string() ? " " + row["error_class"].get<std::string>() : "")
                  << "\n";
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (!out) throw Error::in(results, "cannot write the results file");
}

}  // namespace mine::check
