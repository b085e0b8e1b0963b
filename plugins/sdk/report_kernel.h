#pragma once
#include "core/plugin.h"
#include "include/mine/plugin.h"

namespace mine::sdk {

// Hands a kernel the plugin assembled itself (ExtractedKernel is only a value type here) to the
// host through report_kernel. Returns the host's answer: 0 when taken.
int report_assembled_kernel(const mine_host* host, mine_sink* sink, const ExtractedKernel& k);

}  // namespace mine::sdk
