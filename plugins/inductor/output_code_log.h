#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mine::inductor {

// An output-code module as `TORCH_LOGS="output_code"` prints it: torch's log formatter starts
// every line of the record with its header (`V1127 04:00:01.123000 4242 torch/_inductor/graph.py:
// 2045] [0/0] [__output_code] `), the first line saying `Output code: `. Logs are how output code
// is often shared (a CI log, an issue's attachment) when no debug folder was kept.
struct LoggedModule {
  std::string text;    // the module, headers taken off
  int first_line = 0;  // 1-based line of the log its first line is on
};

// Each module the log holds, in order; none for a text with no `[__output_code]` record.
std::vector<LoggedModule> logged_output_code(std::string_view log);

// Whether `path` names a log or text file that may hold such records (`.log`, `.txt`, `.out`, `.err`).
bool is_log_path(std::string_view path);

}  // namespace mine::inductor
