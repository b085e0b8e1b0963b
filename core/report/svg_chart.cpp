#include "core/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/report/html_escape.h"

namespace mine::report {
namespace {

constexpr int kWidth = 760;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

double axis_max(const std::vector<ChartBar>& bars, const ChartOptions& options) {
  double m = options.max_value;
  for (const auto& b : bars) m = std::max(m, b.value);
  return m > 0 ? m : 1;
}

std::string svg_open(int height, const ChartOptions& options) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" width=\"" + std::to_string(kWidth) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(kWidth) + " " +
         std::to_string(height) + "\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\n<title>" +
         html_escape(options.title) + "</title>\n";
}

std::string shown_value(const ChartBar& b) { return b.value_text.empty() ? format_number(b.value) : b.value_text; }

}  // namespace

std::string format_number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  return num(value);
}

std::string horizontal_bars_svg(const std::vector<ChartBar>& bars, const ChartOptions& options) {
  const int label_w = 270, bar_x = label_w + 8, bar_w = kWidth - bar_x - 110, row_h = 24, top = 6;
  const int height = top * 2 + row_h * static_cast<int>(bars.size());
  const double max = axis_max(bars, options);
  std::string svg = svg_open(height, options);
  for (size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& b = bars[i];
    const int y = top + row_h * static_cast<int>(i);
    const double w = std::max(0.0, b.value) / max * bar_w;
    svg += "<g class=\"bar\">";
    svg += "<title>" + html_escape(b.label) + ": " + html_escape(shown_value(b)) + "</title>";
    svg += "<text x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 16) +
           "\" text-anchor=\"end\" fill=\"#222\">" + html_escape(truncate_utf8_front(b.label, 38)) + "</text>";
    svg += "<rect x=\"" + std::to_string(bar_x) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" + num(w) +
           "\" height=\"" + std::to_string(row_h - 6) + "\" rx=\"2\" fill=\"" + html_escape(options.color) + "\"/>";
    svg += "<text x=\"" + num(bar_x + w + 6) + "\" y=\"" + std::to_string(y + 16) + "\" fill=\"#444\">" +
           html_escape(shown_value(b)) + "</text>";
    svg += "</g>\n";
  }
  return svg + "</svg>";
}

std::string histogram_svg(const std::vector<ChartBar>& bars, const ChartOptions& options) {
  const int left = 16, right = 16, top = 22, plot_h = 200, label_h = 34;
  const int height = top + plot_h + label_h;
  const double max = axis_max(bars, options);
  const double slot = bars.empty() ? 0 : double(kWidth - left - right) / double(bars.size());
  const double bar_w = std::min(90.0, slot * 0.75);
  const int base = top + plot_h;
  std::string svg = svg_open(height, options);
  svg += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(base) + "\" x2=\"" +
         std::to_string(kWidth - right) + "\" y2=\"" + std::to_string(base) + "\" stroke=\"#888\"/>\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& b = bars[i];
    const double cx = left + slot * (double(i) + 0.5);
    const double h = std::max(0.0, b.value) / max * plot_h;
    svg += "<g class=\"bar\">";
    svg += "<title>" + html_escape(b.label) + ": " + html_escape(shown_value(b)) + "</title>";
    svg += "<rect x=\"" + num(cx - bar_w / 2) + "\" y=\"" + num(base - h) + "\" width=\"" + num(bar_w) +
           "\" height=\"" + num(h) + "\" rx=\"2\" fill=\"" + html_escape(options.color) + "\"/>";
    svg += "<text x=\"" + num(cx) + "\" y=\"" + num(base - h - 5) + "\" text-anchor=\"middle\" fill=\"#444\">" +
           html_escape(shown_value(b)) + "</text>";
    svg += "<text x=\"" + num(cx) + "\" y=\"" + std::to_string(base + 18) + "\" text-anchor=\"middle\" fill=\"#222\">" +
           html_escape(truncate_utf8(b.label, 16)) + "</text>";
    svg += "</g>\n";
  }
  return svg + "</svg>";
}

}  // namespace mine::report
