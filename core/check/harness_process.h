#pragma once
#include <string>
#include <vector>

namespace mine::check {

// kernels/harness/run_bundle.py: `explicit_path` when given (it must exist), else
// $MINE_HARNESS, else kernels/harness/ beside or above the mine binary (a build folder inside
// the source tree), else under the current folder. Throws mine::Error listing where it looked.
std::string find_harness(const std::string& explicit_path);

// The Python to run the harness with ($MINE_PYTHON, else python3 on PATH). Throws mine::Error
// when there is none or when it cannot import triton, saying how to check elsewhere.
std::string find_python_with_triton();

// The Python to run the harness with for bundles without Triton kernels (CUDA C only):
// $MINE_PYTHON, else python3 on PATH. Throws mine::Error when there is none.
std::string find_python();

// Runs `argv` as a child with this process's stdin/stdout/stderr (the harness draws its own
// progress) and returns its exit code; 128+N when killed by signal N.
int run_child(const std::vector<std::string>& argv);

}  // namespace mine::check
