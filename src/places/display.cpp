#include "places/display.hpp"

#include <cstdio>
#include <functional>
#include <sstream>

namespace slaw::places {

namespace {

// Worker ids as ranges, "0-3,8".
std::string ranges(const std::vector<unsigned>& ids) {
  cpu_set s;
  for (unsigned i : ids) s.insert(i);
  return s.to_string();
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += v[i];
  }
  return s;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

template <class T>
std::string json_array(const std::vector<T>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// "CPU 3" or "CPUs 0-3,8".
std::string cpus_text(const cpu_set& s) {
  std::string t = s.size() == 1 ? "CPU " : "CPUs ";
  t += s.to_string();
  return t;
}

std::string topology_name(const deployment& d) { return d.topology ? d.topology->description() : "not read"; }

}  // namespace

std::string display_text(const deployment& d) {
  std::ostringstream o;
  const place_tree& t = d.tree;
  o << "SLAW PLACES BEGIN\n"
    << "  source: " << d.source << "\n"
    << "  binding: " << to_string(d.binding) << "\n"
    << "  topology: " << topology_name(d) << "\n"
    << "  workers: " << d.workers.size() << ", places: " << t.size() << " (" << t.leaf_count()
    << (t.leaf_count() == 1 ? " leaf)\n" : " leaves)\n");
  std::function<void(std::size_t)> show = [&](std::size_t i) {
    const place& p = t[i];
    o << std::string(2 * p.depth + 2, ' ') << "place " << i;
    if (!p.objects.empty()) o << " [" << joined(p.objects, " + ") << "]";
    o << " " << cpus_text(p.cpus) << ", ";
    if (!p.is_leaf()) {
      o << "workers " << ranges(p.workers) << "\n";
      for (std::size_t c : p.children) show(c);
      return;
    }
    o << (p.workers.size() == 1 ? "worker " : "workers ");
    for (std::size_t k = 0; k < p.workers.size(); ++k) {
      const cpu_set& b = d.workers[p.workers[k]].bind;
      o << (k ? ", " : "") << p.workers[k] << (b.empty() ? " (not bound)" : " (bound to " + cpus_text(b) + ")");
    }
    o << "\n";
  };
  show(t.root());
  for (const std::string& w : d.warnings) o << "  warning: " << w << "\n";
  o << "SLAW PLACES END\n";
  return o.str();
}

std::string display_json(const deployment& d) {
  const place_tree& t = d.tree;
  std::ostringstream o;
  o << "{\"source\":" << json_string(d.source) << ",\"binding\":" << json_string(to_string(d.binding))
    << ",\"topology\":" << json_string(topology_name(d)) << ",\"root\":" << t.root() << ",\"leaves\":" << t.leaf_count()
    << ",\"places\":[";
  for (std::size_t i = 0; i < t.size(); ++i) {
    const place& p = t[i];
    o << (i ? "," : "") << "{\"id\":" << i << ",\"parent\":";
    if (p.parent == no_place) o << "null";
    else o << p.parent;
    o << ",\"depth\":" << p.depth << ",\"leaf\":" << (p.is_leaf() ? "true" : "false") << ",\"objects\":[";
    for (std::size_t k = 0; k < p.objects.size(); ++k) o << (k ? "," : "") << json_string(p.objects[k]);
    o << "],\"cpus\":" << json_array(p.cpus.cpus()) << ",\"workers\":" << json_array(p.workers) << "}";
  }
  o << "],\"workers\":[";
  for (std::size_t w = 0; w < d.workers.size(); ++w)
    o << (w ? "," : "") << "{\"id\":" << w << ",\"place\":" << d.workers[w].place
      << ",\"bound\":" << json_array(d.workers[w].bind.cpus()) << "}";
  o << "]}";
  return o.str();
}

}  // namespace slaw::places
