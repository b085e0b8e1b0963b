// The parser's own speed on the files `mine scan` parses: bench/scan.sh sets it beside the scan.
//
// Lists a tree's Python files as the scanner does, reads them, keeps those a plugin's prefilter
// accepts (the files the scan parses for kernels), then only parses them with tree-sitter on
// --jobs threads, each file once, nothing else. Prints one line of JSON:
//   {"files": N, "bytes": B, "read_s": ..., "parse_s": ..., "parse_mb_s": ...}
// parse_s is the parse alone (files already in memory): tree-sitter's raw rate on these files and
// cores, the ceiling for the scan's parsed MB/s.
//
// usage: parse_only REPO_OR_FOLDER [--jobs N]
#include <tree_sitter/api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <re2/re2.h>
#include <string>
#include <thread>
#include <vector>

#include "core/scan/scanner.h"
#include "core/scan/source_tree.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

bool is_python(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".py"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: parse_only REPO_OR_FOLDER [--jobs N]\n");
    return 2;
  }
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--jobs") jobs = std::stoi(argv[i + 1]);

  // The Python plugins' prefilters, joined as the scanner joins them.
  std::vector<std::unique_ptr<RE2>> prefilters;
  for (const auto* p : mine::all_plugins()) {
    bool reads_python = false;
    for (const auto& s : p->file_suffixes()) reads_python |= s == ".py";
    if (!reads_python) continue;
    std::string joined;
    for (const auto& pattern : p->prefilter_patterns()) joined += (joined.empty() ? "" : "|") + ("(?:" + pattern + ")");
    prefilters.push_back(std::make_unique<RE2>(joined));
  }

  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<mine::SourceTree> tree = mine::open_source_tree(argv[1]);
  std::vector<mine::SourceEntry> entries = tree->list([](std::string_view p) { return is_python(p); });
  std::vector<std::string> texts(entries.size());
  std::vector<char> chosen(entries.size(), 0);
  {
    std::atomic<size_t> next{0};
    auto loop = [&] {
      auto reader = tree->reader();
      for (size_t i = next++; i < entries.size(); i = next++) {
        mine::SourceEntry e = entries[i];
        if (!reader->read(e, 20 << 20, texts[i]).empty()) continue;
        for (const auto& re : prefilters)
          if (RE2::PartialMatch(texts[i], *re)) chosen[i] = 1;
        if (!chosen[i]) std::string().swap(texts[i]);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < jobs; ++t) pool.emplace_back(loop);
    loop();
    for (auto& t : pool) t.join();
  }
  std::vector<size_t> files;
  size_t bytes = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!chosen[i]) continue;
    files.push_back(i);
    bytes += texts[i].size();
  }
  double read_s = seconds_since(start);

  // Largest first, so that no thread is left with one big file at the end.
  std::sort(files.begin(), files.end(), [&](size_t a, size_t b) { return texts[a].size() > texts[b].size(); });
  auto parse_start = std::chrono::steady_clock::now();
  std::vector<TSParser*> parsers;
  for (int t = 0; t < jobs; ++t) {
    parsers.push_back(ts_parser_new());
    ts_parser_set_language(parsers.back(), tree_sitter_python());
  }
  std::atomic<int> parser_ids{0};
  std::atomic<size_t> next{0};
  auto loop = [&] {
    TSParser* parser = parsers[static_cast<size_t>(parser_ids++)];
    for (size_t k = next++; k < files.size(); k = next++) {
      const std::string& text = texts[files[k]];
      TSTree* t = ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      ts_tree_delete(t);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < jobs; ++t) pool.emplace_back(loop);
  loop();
  for (auto& t : pool) t.join();
  double parse_s = seconds_since(parse_start);
  for (auto* p : parsers) ts_parser_delete(p);

  std::printf("{\"files\": %zu, \"bytes\": %zu, \"jobs\": %d, \"read_s\": %.4f, \"parse_s\": %.4f, \"parse_mb_s\": %.2f}\n",
              files.size(), bytes, jobs, read_s, parse_s, bytes / 1048576.0 / std::max(parse_s, 1e-6));
  return 0;
}
