#pragma once
#include <map>
#include <string>
#include <string_view>

namespace mine {

// RFC 8288 `Link` header as GitHub sends it: `<url>; rel="next", <url>; rel="last"`.
// Returns rel -> url; a link with several rels ("next last") appears under each.
std::map<std::string, std::string> parse_link_header(std::string_view header);

}  // namespace mine
