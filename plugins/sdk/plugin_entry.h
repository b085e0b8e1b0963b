#pragma once
#include <exception>
#include <string>

#include "include/mine/plugin.h"

namespace mine::sdk {

// Runs a plugin's C++ body behind the C boundary: an exception must not unwind through the
// host's frames, so it becomes a problem of the file, worded as the scanner words a failing plugin.
template <typename F>
void run_guarded(const char* plugin, const mine_host* host, mine_sink* sink, F&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    host->report_problem(sink, 0, "plugin", (std::string(plugin) + " failed: " + e.what()).c_str());
  }
}

}  // namespace mine::sdk
