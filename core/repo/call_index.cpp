#include "core/repo/call_index.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_set>

namespace mine {
namespace {

// By byte: 2 starts an identifier (letters, `_`), 1 continues one (digits); ASCII only, as before.
constexpr std::array<uint8_t, 256> kIdentifier = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') t[c] = 2;
    if (c >= '0' && c <= '9') t[c] = 1;
  }
  return t;
}();

// Every `name(` of `text`, in order, repeats included: a run of identifier characters that starts
// with a letter or `_` (a run starting with a digit is a number's tail, no name), followed by
// blanks and `(`. Found from each `(` (memchr) back over the blanks and the run before it: the
// scan runs over every Python file of a repository, most of whose bytes are no call.
template <typename F>
void for_each_call(std::string_view text, F&& f) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* from = begin;
  while (from < end) {
    const char* paren = static_cast<const char*>(std::memchr(from, '(', static_cast<size_t>(end - from)));
    if (!paren) return;
    from = paren + 1;
    const char* last = paren;  // one past the run
    while (last > begin && (last[-1] == ' ' || last[-1] == '\t')) --last;
    const char* first = last;
    while (first > begin && kIdentifier[static_cast<unsigned char>(first[-1])]) --first;
    if (first < last && kIdentifier[static_cast<unsigned char>(*first)] == 2)
      f(std::string_view(first, static_cast<size_t>(last - first)));
  }
}

}  // namespace

CallIndex::CallIndex(std::vector<std::string> python_paths) : paths_(std::move(python_paths)), taken_(paths_.size(), 0) {
  for (uint32_t i = 0; i < paths_.size(); ++i) index_of_.emplace(paths_[i], i);
}

std::vector<std::string> CallIndex::called_names(std::string_view text) {
  std::vector<std::string> out;
  std::unordered_set<std::string_view> seen;
  for_each_call(text, [&](std::string_view name) {
    if (seen.insert(name).second) out.emplace_back(name);
  });
  return out;
}

std::vector<std::string_view> CallIndex::names_called(std::string_view text) {
  // Each distinct name once, found in a table open-addressed by the name's FNV-1a hash: sorting
  // the calls by hash to make repeats fall together cost O(n log n) steps a file, most of the
  // index's own work on a repository of large files (200 M instructions on unsloth's 1,700).
  struct Slot {
    uint64_t hash = 0;
    std::string_view name;
    bool used = false;
  };
  std::vector<Slot> table(256);
  size_t used = 0;
  auto slot_of = [](std::vector<Slot>& t, uint64_t h) { return static_cast<size_t>(h ^ (h >> 29)) & (t.size() - 1); };
  std::vector<std::string_view> names;
  for_each_call(text, [&](std::string_view name) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
    for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
    for (size_t i = slot_of(table, h);; i = (i + 1) & (table.size() - 1)) {
      Slot& s = table[i];
      if (!s.used) break;
      if (s.hash == h && s.name == name) return;  // called before
    }
    if (2 * (used + 1) > table.size()) {  // at most half full
      std::vector<Slot> bigger(table.size() * 2);
      for (const Slot& s : table) {
        if (!s.used) continue;
        size_t i = slot_of(bigger, s.hash);
        while (bigger[i].used) i = (i + 1) & (bigger.size() - 1);
        bigger[i] = s;
      }
      table.swap(bigger);
    }
    size_t i = slot_of(table, h);
    while (table[i].used) i = (i + 1) & (table.size() - 1);
    table[i] = {h, name, true};
    ++used;
    names.push_back(name);
  });
  return names;
}

void CallIndex::add(uint32_t file, const std::vector<std::string_view>& names) const {
  for (std::string_view name : names) callers_[std::string(name)].push_back(file);
}

void CallIndex::record(const std::string& path, std::string_view text) {
  auto found = index_of_.find(path);
  if (found == index_of_.end()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (built_ || taken_[found->second]) return;
  }
  std::vector<std::string_view> names = names_called(text);  // outside the lock: workers scan at once
  std::lock_guard<std::mutex> lock(mutex_);
  if (built_ || taken_[found->second]) return;
  taken_[found->second] = 1;
  add(found->second, names);
}

void CallIndex::build(const ReadText& read) const {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!built_) {
    while (next_unread_ < paths_.size() && taken_[next_unread_]) ++next_unread_;
    if (next_unread_ < paths_.size()) {
      uint32_t i = static_cast<uint32_t>(next_unread_++);
      taken_[i] = 1;  // a record of this file from now on is dropped: it is read here
      ++reading_;
      lock.unlock();
      std::optional<std::string> text;
      std::vector<std::string_view> names;  // views into *text
      try {
        text = read(paths_[i]);
        if (text) names = names_called(*text);
      } catch (...) {
        lock.lock();
        if (--reading_ == 0) read_done_.notify_all();
        throw;
      }
      lock.lock();
      add(i, names);
      if (--reading_ == 0) read_done_.notify_all();
      continue;
    }
    if (reading_ > 0) {
      // Every file is taken, some still being read by other threads: wait for them (or for one
      // of them to finish the index).
      read_done_.wait(lock, [&] { return built_ || reading_ == 0; });
      continue;
    }
    // Files were added as they came; each name lists its files in path order, as one reading
    // them in order would.
    for (auto& [called, files] : callers_) std::sort(files.begin(), files.end());
    built_ = true;
    read_done_.notify_all();
  }
}

std::vector<std::string> CallIndex::files_calling(const std::string& name, const ReadText& read) const {
  build(read);
  std::vector<std::string> out;
  auto it = callers_.find(name);
  if (it != callers_.end())
    for (uint32_t i : it->second) out.push_back(paths_[i]);
  return out;
}

}  // namespace mine
