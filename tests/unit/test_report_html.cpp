// The report writers: escaping of hostile corpus text, the SVG charts, and the page built from
// the stats of a real scan of tests/fixtures/triton.
#include <catch2/catch.hpp>

#include "core/report/corpus_report.h"
#include "core/report/html_escape.h"
#include "core/report/html_page.h"
#include "core/report/svg_chart.h"
#include "test_check_corpus.h"

using namespace mine;
using namespace mine::report;

namespace {
size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("html_escape neutralizes markup, bad UTF-8 and control characters", "[report][escape]") {
  CHECK(html_escape("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  CHECK(html_escape("a&b \"q\"") == "a&amp;b &quot;q&quot;");
  CHECK(html_escape("grün ✓ 核") == "grün ✓ 核");
  CHECK(html_escape(std::string("a\xff\xfe" "b")) == "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
  CHECK(html_escape(std::string("\xC0\xAF")) == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  CHECK(html_escape(std::string("x\x01y\x1b")) == "x\xEF\xBF\xBDy\xEF\xBF\xBD");
  CHECK(html_escape("tab\tline\n") == "tab\tline\n");
}

TEST_CASE("truncation never splits a code point", "[report][escape]") {
  CHECK(truncate_utf8("short", 10) == "short");
  CHECK(truncate_utf8("ääääää", 4) == "äää…");
  CHECK(truncate_utf8_front("/a/long/path/kernels", 8) == "…kernels");
  CHECK(truncate_utf8_front("ü/ßßß", 3) == "…ßß");
}

TEST_CASE("bar charts escape labels and draw one bar per item", "[report][svg]") {
  std::vector<ChartBar> bars = {{"<img src=x onerror=alert(1)>", 10, ""}, {"b", 5, "50% (1 of 2)"}, {"c", 0, ""}};
  ChartOptions options;
  options.title = "t</title><script>";
  for (const std::string& svg : {horizontal_bars_svg(bars, options), histogram_svg(bars, options)}) {
    CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    CHECK(count(svg, "<rect") == 3);
    CHECK(svg.find("<img") == std::string::npos);
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(svg.find("&lt;img src=x") != std::string::npos);
    CHECK(svg.find("50% (1 of 2)") != std::string::npos);
  }
  // Bars are to scale: the first is the longest, the zero bar has no width.
  std::string h = horizontal_bars_svg(bars, options);
  CHECK(h.find("width=\"372.0\"") != std::string::npos);
  CHECK(h.find("width=\"186.0\"") != std::string::npos);
  CHECK(h.find("width=\"0.0\"") != std::string::npos);
  CHECK(format_number(3) == "3");
  CHECK(format_number(2.25) == "2.2");
}

TEST_CASE("the corpus report shows each figure with its SQL and says what is missing", "[report]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/triton");
  auto ro = corpus.read_only();
  std::string html = corpus_report_html(corpus_stats(*ro), {"<corpus>.db", 5, "2026-01-01T00:00:00Z"});
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&lt;corpus&gt;.db") != std::string::npos);
  CHECK(html.find("<section id=\"top_repositories\">") != std::string::npos);
  CHECK(html.find("<section id=\"kernel_sizes\">") != std::string::npos);
  CHECK(count(html, "<svg") >= 4);  // repositories, plugins, sizes, crawl state, licenses
  CHECK(html.find("WHEN n &lt;= 10") != std::string::npos);  // the SQL, escaped
  // No checks recorded: the section says how to get them instead of drawing an empty chart.
  auto at = html.find("<section id=\"check_pass_rate\">");
  REQUIRE(at != std::string::npos);
  std::string check_section = html.substr(at, html.find("</section>", at) - at);
  CHECK(check_section.find("<svg") == std::string::npos);
  CHECK(check_section.find("mine check --run") != std::string::npos);
}
