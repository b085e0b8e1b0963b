#include "core/report/html_page.h"

#include "core/report/html_escape.h"

namespace mine::report {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 820px; color: #222; background: #fff; }
h1 { margin-bottom: 0.1em; }
.subtitle { color: #666; margin-top: 0; }
nav { font-size: 0.9em; margin: 1em 0; line-height: 1.6; }
nav a { margin-right: 0.9em; color: #2a5d9f; }
section { border-top: 1px solid #ddd; padding: 0.6em 0 1em; }
h2 { font-size: 1.15em; margin: 0.6em 0 0.3em; }
.note { color: #8a5a00; }
.cards { display: flex; flex-wrap: wrap; gap: 0.8em; margin: 1em 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 0.5em 0.9em; min-width: 7em; }
.card b { display: block; font-size: 1.5em; }
.card span { color: #666; font-size: 0.85em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.4em 0; }
th, td { border-bottom: 1px solid #eee; padding: 0.2em 0.8em 0.2em 0; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
details { margin-top: 0.4em; font-size: 0.85em; }
summary { cursor: pointer; color: #555; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre; }
svg.chart { max-width: 100%; height: auto; }
)";

// Counts and percentages are right-aligned; ranges such as "1-10" are labels.
bool numeric(const std::string& s) {
  size_t i = s.size() > 1 && s[0] == '-' ? 1 : 0, digits = 0, dots = 0;
  for (; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9')
      ++digits;
    else if (s[i] == '.' && ++dots == 1)
      continue;
    else
      return false;
  }
  return digits > 0;
}

}  // namespace

std::string html_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<thead><tr>";
  for (const auto& c : columns) out += "<th>" + html_escape(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) out += (numeric(cell) ? "<td class=\"n\">" : "<td>") + html_escape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>";
}

std::string render_page(const Page& page) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // No script and nothing fetched: the page must stay readable offline and harmless to open.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      html_escape(page.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" +
      html_escape(page.title) + "</h1>\n<p class=\"subtitle\">" + html_escape(page.subtitle) + "</p>\n" +
      page.intro_html + "\n<nav>";
  for (const auto& b : page.blocks) out += "<a href=\"#" + b.id + "\">" + html_escape(b.title) + "</a> ";
  out += "</nav>\n";
  for (const auto& b : page.blocks) {
    out += "<section id=\"" + b.id + "\">\n<h2>" + html_escape(b.title) + "</h2>\n";
    if (!b.note.empty()) out += "<p class=\"note\">" + html_escape(b.note) + "</p>\n";
    out += b.body_html + "\n";
    if (!b.sql.empty())
      out += "<details><summary>SQL (re-run it with <code>mine query</code>)</summary><pre><code>" +
             html_escape(b.sql) + "</code></pre></details>\n";
    out += "</section>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace mine::report
