#include "plugins/sdk/python_file.h"

namespace mine::sdk {

TSNode keyword_argument(const PythonFile& file, TSNode call, const std::string& name) {
  return ts::keyword_value(call, name, [&](TSNode n) { return file.view_of(n); });
}

}  // namespace mine::sdk
