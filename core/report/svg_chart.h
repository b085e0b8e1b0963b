#pragma once
#include <string>
#include <vector>

namespace mine::report {

struct ChartBar {
  std::string label;       // raw text; escaped by the writer
  double value = 0;
  std::string value_text;  // shown at the bar's end; empty: the value itself
};

struct ChartOptions {
  std::string title;       // the SVG's accessible name
  double max_value = 0;    // axis maximum; 0: the largest value
  std::string color = "#4c78a8";
};

// Inline SVG: one horizontal bar per item, labels on the left. Suits ranked lists with long
// names (repositories, error classes).
std::string horizontal_bars_svg(const std::vector<ChartBar>& bars, const ChartOptions& options);

// Inline SVG: vertical bars over an ordered axis (size buckets, speedup ranges).
std::string histogram_svg(const std::vector<ChartBar>& bars, const ChartOptions& options);

// A number as a chart shows it: integers without decimals, others with at most one.
std::string format_number(double value);

}  // namespace mine::report
