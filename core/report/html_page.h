#pragma once
#include <string>
#include <vector>

namespace mine::report {

// One titled part of the page: a chart or table, and the SQL that produced it.
struct PageBlock {
  std::string id;         // anchor; [a-z_] only
  std::string title;      // raw text
  std::string body_html;  // trusted markup made by mine (a chart or a table)
  std::string sql;        // raw text; empty: none shown
  std::string note;       // raw text under the title, e.g. why the figure is missing
};

struct Page {
  std::string title;      // raw text
  std::string subtitle;   // raw text
  std::string intro_html; // trusted markup above the blocks
  std::vector<PageBlock> blocks;
};

// A complete HTML document: inline CSS, inline SVG, no scripts and nothing fetched from anywhere.
std::string render_page(const Page& page);

// A plain HTML table of raw cells (escaped here).
std::string html_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows);

}  // namespace mine::report
