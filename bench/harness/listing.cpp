#include "harness/listing.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "harness/benchmark.hpp"
#include "harness/options.hpp"
#include "harness/record.hpp"
#include "harness/variants.hpp"

namespace slawbench {

namespace {

constexpr std::size_t width = 110;

std::vector<const benchmark*> by_name() {
  std::vector<const benchmark*> bs;
  for (const auto& b : registry()) bs.push_back(&b);
  std::sort(bs.begin(), bs.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return bs;
}

// A benchmark's parameters: those of its size sets and those it describes (the same keys when the
// kernel is consistent; --list shows a mismatch rather than hide it).
std::set<std::string> keys_of(const benchmark& b) {
  std::set<std::string> keys;
  for (const auto& z : sizes)
    for (const auto& [k, v] : b.*(z.params)) keys.insert(k);
  for (const auto& [k, v] : b.params_doc) keys.insert(k);
  return keys;
}

const char* value_at(const benchmark& b, const size_spec& z, const std::string& key) {
  auto it = (b.*(z.params)).find(key);
  return it == (b.*(z.params)).end() ? nullptr : it->second.c_str();
}

std::string doc_of(const benchmark& b, const std::string& key) {
  auto it = b.params_doc.find(key);
  return it == b.params_doc.end() ? std::string() : it->second;
}

std::vector<std::string> env_of(const variant& v) {
  std::vector<std::string> names;
  std::istringstream in{std::string(v.env)};
  for (std::string n; in >> n;) names.push_back(n);
  return names;
}

const char* kind_name(variant_kind k) {
  switch (k) {
    case variant_kind::serial: return "serial";
    case variant_kind::slaw: return "slaw";
    case variant_kind::tbb: return "tbb";
    case variant_kind::omp: return "omp";
    case variant_kind::pstl: return "pstl";
  }
  return "?";
}

std::string padded(const std::string& s, std::size_t n) { return s.size() >= n ? s + " " : s + std::string(n - s.size(), ' '); }

std::string quoted(const std::string& s) {
  std::string q(1, '"');  // appended, not "\"" + ...: GCC 12 warns falsely (-Wrestrict) about that
  q += json_escape(s);
  q += '"';
  return q;
}

}  // namespace

std::string list_text() {
  std::string size_names;
  for (const auto& z : sizes) size_names += (size_names.empty() ? "" : " | ") + std::string(z.name);
  std::ostringstream o;
  o << "Benchmarks (--bench NAME[,NAME...]; default: all). Under each, its parameters (--arg KEY=VALUE) with\n"
       "their values at --size "
    << size_names << ", then what they mean.\n";
  for (const benchmark* b : by_name()) {
    o << "\n" << padded(b->name, 12) << wrapped(b->what, 12, width) << "\n";
    const auto keys = keys_of(*b);
    std::size_t key_w = 0, val_w = 0;
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& k : keys) {
      std::string vals;
      for (const auto& z : sizes) {
        const char* v = value_at(*b, z, k);
        vals += (vals.empty() ? "" : " | ") + std::string(v ? v : "-");
      }
      key_w = std::max(key_w, k.size());
      val_w = std::max(val_w, vals.size());
      rows.emplace_back(k, vals);
    }
    for (const auto& [k, vals] : rows) {
      const std::size_t indent = 4 + key_w + 2 + val_w + 2;
      o << "    " << padded(k, key_w + 2) << padded(vals, val_w + 2)
        << wrapped(doc_of(*b, k).empty() ? "(not described)" : doc_of(*b, k), indent, width) << "\n";
    }
  }
  o << "\nVariants (--variant NAME[,NAME...]; default: all, run in this order):\n";
  for (const auto& v : variant_table) {
    o << "  " << padded(std::string(v.name), 12) << wrapped(std::string(v.what), 14, width) << "\n";
    const auto env = env_of(v);
    std::string e;
    for (const auto& n : env) e += (e.empty() ? "" : ", ") + n;
    o << std::string(14, ' ') << wrapped("reads: " + (e.empty() ? std::string("no environment variable") : e), 14, width)
      << "\n";
  }
  std::string set;
  for (const auto& n : set_by_slaw_bench) set += (set.empty() ? "" : ", ") + std::string(n);
  o << "\n" << wrapped("Environment variables the variants read (--workers and the variant set " + set + "):", 0, width)
    << "\n";
  std::size_t name_w = 0;
  for (const auto& e : environment) name_w = std::max(name_w, e.name.size() + 2);
  for (const auto& e : environment)
    o << "  " << padded(std::string(e.name), name_w) << wrapped(std::string(e.what), 2 + name_w, width) << "\n";
  o << "\nSizes (--size NAME; default: default):\n";
  for (const auto& z : sizes) o << "  " << padded(std::string(z.name), 10) << wrapped(std::string(z.what), 12, width) << "\n";
  return o.str();
}

std::string list_json() {
  std::ostringstream o;
  o << "{\"options\":[";
  bool first = true;
  for (const auto& d : documented_options())
    o << (std::exchange(first, false) ? "" : ",") << "{\"name\":" << quoted(d.name) << ",\"alias\":" << quoted(d.alias)
      << ",\"value\":" << quoted(d.value) << "}";
  o << "],\n\"sizes\":[";
  first = true;
  for (const auto& z : sizes)
    o << (std::exchange(first, false) ? "" : ",") << "{\"name\":" << quoted(std::string(z.name))
      << ",\"what\":" << quoted(std::string(z.what)) << "}";
  o << "],\n\"benchmarks\":[";
  first = true;
  for (const benchmark* b : by_name()) {
    o << (std::exchange(first, false) ? "" : ",\n") << "{\"name\":" << quoted(b->name) << ",\"what\":" << quoted(b->what)
      << ",\"params\":[";
    bool first_key = true;
    for (const auto& k : keys_of(*b)) {
      o << (std::exchange(first_key, false) ? "" : ",") << "{\"key\":" << quoted(k) << ",\"what\":" << quoted(doc_of(*b, k))
        << ",\"values\":{";
      bool first_size = true;
      for (const auto& z : sizes) {
        const char* v = value_at(*b, z, k);
        o << (std::exchange(first_size, false) ? "" : ",") << quoted(std::string(z.name)) << ":"
          << (v ? quoted(v) : std::string("null"));
      }
      o << "}}";
    }
    o << "]}";
  }
  o << "],\n\"variants\":[";
  first = true;
  for (const auto& v : variant_table) {
    o << (std::exchange(first, false) ? "" : ",\n") << "{\"name\":" << quoted(std::string(v.name))
      << ",\"kind\":\"" << kind_name(v.kind) << "\",\"what\":" << quoted(std::string(v.what)) << ",\"env\":[";
    bool first_env = true;
    for (const auto& n : env_of(v)) o << (std::exchange(first_env, false) ? "" : ",") << quoted(n);
    o << "],\"locality\":" << (v.locality ? "true" : "false") << ",\"tuned\":" << (v.tuned ? "true" : "false")
      << ",\"child_env\":[";
    std::istringstream defaults{std::string(v.child_env)};
    bool first_default = true;
    for (std::string kv; defaults >> kv;) o << (std::exchange(first_default, false) ? "" : ",") << quoted(kv);
    o << "]}";
  }
  o << "],\n\"set_by_slaw_bench\":[";
  first = true;
  for (const auto& n : set_by_slaw_bench) o << (std::exchange(first, false) ? "" : ",") << quoted(std::string(n));
  o << "],\n\"environment\":[";
  first = true;
  for (const auto& e : environment)
    o << (std::exchange(first, false) ? "" : ",\n") << "{\"name\":" << quoted(std::string(e.name))
      << ",\"what\":" << quoted(std::string(e.what)) << "}";
  o << "]}\n";
  return o.str();
}

}  // namespace slawbench
