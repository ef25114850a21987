#include "places/deployment_file.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "places/omp_places.hpp"
#include "slaw/config.hpp"
#include "util/read_file.hpp"

namespace slaw::places {

namespace {

constexpr const char* format =
    "the format: a first line 'WORKERS PLACES', then one line 'WORKER @ PLACE -> CPU CPU ...' per worker "
    "(// or # starts a comment)";

struct token {
  enum kind_t { number, at, arrow } kind;
  unsigned long value = 0;
};

class reader {
 public:
  explicit reader(std::string_view origin) : origin_(origin) {}

  [[noreturn]] void fail(std::size_t line, const std::string& why) const {
    throw config_error(std::string(origin_) + (line ? ":" + std::to_string(line) : std::string()) + ": " + why + "; " +
                       format);
  }

  // The tokens of one line, comments removed.
  std::vector<token> tokens(std::string_view text, std::size_t line) const {
    if (auto c = std::min(text.find("//"), text.find('#')); c != std::string_view::npos) text = text.substr(0, c);
    std::vector<token> v;
    for (std::size_t i = 0; i < text.size();) {
      const char ch = text[i];
      if (ch == ' ' || ch == '\t' || ch == '\r') {
        ++i;
      } else if (ch == '@') {
        v.push_back({token::at});
        ++i;
      } else if (ch == '-' && i + 1 < text.size() && text[i + 1] == '>') {
        v.push_back({token::arrow});
        i += 2;
      } else if (std::isdigit(static_cast<unsigned char>(ch))) {
        std::size_t j = i;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
        token t{token::number};
        auto [p, ec] = std::from_chars(text.data() + i, text.data() + j, t.value);
        if (ec != std::errc() || t.value > max_cpu) fail(line, "number '" + std::string(text.substr(i, j - i)) + "' too large");
        v.push_back(t);
        i = j;
      } else {
        fail(line, "unexpected '" + std::string(1, ch) + "'");
      }
    }
    return v;
  }

 private:
  std::string_view origin_;
};

}  // namespace

deployment_spec parse_deployment(std::string_view text, std::string_view origin) {
  reader r(origin);
  deployment_spec d;
  std::vector<char> seen;
  bool header = false;
  std::size_t line = 0;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view raw = text.substr(at, nl - at);
    at = nl + 1;
    ++line;
    const std::vector<token> t = r.tokens(raw, line);
    if (t.empty()) continue;
    auto number_at = [&](std::size_t i) { return i < t.size() && t[i].kind == token::number; };
    if (!header) {
      if (t.size() != 2 || !number_at(0) || !number_at(1)) r.fail(line, "expected 'WORKERS PLACES' (two numbers)");
      if (t[0].value < 1 || t[0].value > max_file_workers)
        r.fail(line, "the number of workers must be in [1, " + std::to_string(max_file_workers) + "]");
      if (t[1].value < 1 || t[1].value > t[0].value)
        r.fail(line, "the number of places must be in [1, WORKERS]: each place needs a worker");
      d.workers.resize(t[0].value);
      d.places = static_cast<unsigned>(t[1].value);
      seen.assign(t[0].value, 0);
      header = true;
      continue;
    }
    if (t.size() < 4 || !number_at(0) || t[1].kind != token::at || !number_at(2) || t[3].kind != token::arrow)
      r.fail(line, "expected 'WORKER @ PLACE -> CPU ...'");
    if (t.size() == 4) r.fail(line, "worker " + std::to_string(t[0].value) + " has no CPU after '->'");
    const unsigned long w = t[0].value, p = t[2].value;
    if (w >= d.workers.size())
      r.fail(line, "worker " + std::to_string(w) + " is not in [0, " + std::to_string(d.workers.size() - 1) + "]");
    if (p >= d.places) r.fail(line, "place " + std::to_string(p) + " is not in [0, " + std::to_string(d.places - 1) + "]");
    if (seen[w]) r.fail(line, "worker " + std::to_string(w) + " appears twice (first on line " + std::to_string(d.workers[w].line) + ")");
    seen[w] = 1;
    auto& wl = d.workers[w];
    wl.place = static_cast<unsigned>(p);
    wl.line = line;
    std::vector<unsigned> cpus;
    for (std::size_t i = 4; i < t.size(); ++i) {
      if (t[i].kind != token::number) r.fail(line, "expected CPU numbers after '->'");
      cpus.push_back(static_cast<unsigned>(t[i].value));
    }
    wl.cpus = cpu_set::of(std::move(cpus));  // one sort, whatever the order the CPUs come in
  }
  if (!header) r.fail(0, "the file has no 'WORKERS PLACES' line");
  std::vector<char> populated(d.places, 0);
  for (std::size_t w = 0; w < d.workers.size(); ++w) {
    if (!seen[w]) r.fail(0, "worker " + std::to_string(w) + " has no line");
    populated[d.workers[w].place] = 1;
  }
  for (unsigned p = 0; p < d.places; ++p)
    if (!populated[p]) r.fail(0, "place " + std::to_string(p) + " has no worker (an empty place)");
  return d;
}

deployment_spec read_deployment_file(const std::string& path, std::string_view variable) {
  const std::string origin = std::string(variable) + "=" + path;
  if (path.empty()) throw config_error(std::string(variable) + "='': expected the path of a deployment file");
  std::string text;
  const util::read_status st = util::read_file(path, max_deployment_file_bytes, text);
  if (st.kind == util::read_status::cannot_open)
    throw config_error(origin + ": cannot open the deployment file: " + std::strerror(st.error));
  if (st.kind == util::read_status::directory) throw config_error(origin + ": is a directory, not a deployment file");
  if (!st) throw config_error(origin + ": " + st.describe() + "; a deployment file is a regular file or a pipe");
  return parse_deployment(text, origin);
}

}  // namespace slaw::places
