#include "places/omp_places.hpp"

#include <cctype>
#include <charconv>
#include <string>

#include "slaw/config.hpp"

namespace slaw::places {

const char* const places_accepted =
    "accepted: an abstract name threads, cores, ll_caches, numa_domains or sockets, optionally with a count "
    "(cores(4)); tree (the machine's place tree) or flat (one place); or an OpenMP list of places of CPU "
    "numbers such as {0:4},{4:4} or {0,1},{2,3} or {0:2}:4:2 (! excludes a CPU or a place)";

const char* to_string(abstract_name n) noexcept {
  switch (n) {
    case abstract_name::threads: return "threads";
    case abstract_name::cores: return "cores";
    case abstract_name::ll_caches: return "ll_caches";
    case abstract_name::numa_domains: return "numa_domains";
    case abstract_name::sockets: return "sockets";
    case abstract_name::tree: return "tree";
    case abstract_name::flat: return "flat";
  }
  return "?";
}

namespace {

// Recursive descent over the grammar of omp_places.hpp; `at_` is the next unread character.
class parser {
 public:
  parser(std::string_view text, std::string_view variable) : text_(text), variable_(variable) {}

  places_spec parse() {
    skip_blanks();
    if (at_ == text_.size()) fail("the value is empty");
    places_spec result = std::isalpha(static_cast<unsigned char>(text_[at_])) ? places_spec(name()) : places_spec(list());
    skip_blanks();
    if (at_ != text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    std::string where;
    if (at_ < text_.size()) where = " at position " + std::to_string(at_ + 1) + " ('" + std::string(text_.substr(at_)) + "')";
    throw config_error(std::string(variable_) + "='" + std::string(text_) + "': " + why + where + "; " +
                       places_accepted);
  }

  void skip_blanks() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
  }
  bool accept(char c) {
    skip_blanks();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!accept(c)) fail(std::string("expected ") + what);
  }

  // An integer; `lo` bounds it from below, max_cpu (or, for strides, -max_cpu) bounds its size.
  long number(const char* what, bool may_be_negative, long lo) {
    skip_blanks();
    const std::size_t start = at_;
    bool negative = false;
    if (may_be_negative && at_ < text_.size() && (text_[at_] == '-' || text_[at_] == '+')) negative = text_[at_++] == '-';
    std::size_t digits = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (digits == at_) {
      at_ = start;
      fail(std::string("expected ") + what);
    }
    unsigned long v = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + digits, text_.data() + at_, v);
    if (ec != std::errc() || v > max_cpu) {
      at_ = start;
      fail(std::string(what) + " above " + std::to_string(max_cpu));
    }
    const long r = negative ? -static_cast<long>(v) : static_cast<long>(v);
    if (r < lo) {
      at_ = start;
      fail(std::string(what) + " must be at least " + std::to_string(lo));
    }
    return r;
  }

  abstract_places name() {
    const std::size_t start = at_;
    std::string word;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(text_[at_++])));
    abstract_places a;
    bool known = false;
    for (abstract_name n : {abstract_name::threads, abstract_name::cores, abstract_name::ll_caches,
                            abstract_name::numa_domains, abstract_name::sockets, abstract_name::tree, abstract_name::flat})
      if (word == to_string(n)) a.name = n, known = true;
    if (!known) {
      at_ = start;
      fail("unknown abstract name '" + std::string(text_.substr(start, word.size())) + "'");
    }
    if (accept('(')) {
      if (a.name == abstract_name::tree || a.name == abstract_name::flat) {
        --at_;
        fail("'" + word + "' takes no count");
      }
      a.count = static_cast<unsigned>(number("a number of places", false, 1));
      expect(')', "')'");
    }
    return a;
  }

  // A place's CPU numbers: inclusions, then exclusions applied to the whole place. The numbers are
  // gathered unsorted and sorted once (an interval may run downwards); a batch is compacted whenever it
  // holds more numbers than there are CPUs, so that repeated intervals cost no memory.
  cpu_set place() {
    skip_blanks();
    const std::size_t start = at_;
    if (!accept('{')) return cpu_set{static_cast<unsigned>(number("a CPU number or '{'", false, 0))};
    std::vector<unsigned> in, out;
    auto add = [](std::vector<unsigned>& v, unsigned cpu) {
      v.push_back(cpu);
      if (v.size() > 2 * (std::size_t{max_cpu} + 1)) v = cpu_set::of(std::move(v)).cpus();
    };
    do {
      if (accept('!')) {
        add(out, static_cast<unsigned>(number("a CPU number after '!'", false, 0)));
        continue;
      }
      const long first = number("a CPU number", false, 0);
      long count = 1, stride = 1;
      if (accept(':')) {
        count = number("a count of CPUs", false, 1);
        if (accept(':')) stride = number("a stride", true, -static_cast<long>(max_cpu));
      }
      for (long k = 0; k < count; ++k) {
        const long cpu = first + k * stride;
        if (cpu < 0 || cpu > static_cast<long>(max_cpu))
          fail("the interval " + std::to_string(first) + ":" + std::to_string(count) + ":" + std::to_string(stride) +
               " reaches CPU " + std::to_string(cpu) + ", outside 0.." + std::to_string(max_cpu));
        add(in, static_cast<unsigned>(cpu));
      }
    } while (accept(','));
    expect('}', "',' or '}'");
    const cpu_set included = cpu_set::of(std::move(in)), excluded = cpu_set::of(std::move(out));
    for (unsigned c : excluded.cpus())
      if (!included.contains(c)) {
        at_ = start;
        fail("the place excludes CPU " + std::to_string(c) + ", which it does not contain");
      }
    cpu_set result = set_difference(included, excluded);
    if (result.empty()) {
      at_ = start;
      fail("the place is empty");
    }
    return result;
  }

  std::vector<cpu_set> list() {
    std::vector<cpu_set> places, excluded;
    std::size_t cpus_in_all = 0;  // CPU numbers in the places so far, listed and excluded
    auto too_many_cpus = [&](std::size_t more) {
      return more > max_list_cpus - cpus_in_all;  // cpus_in_all <= max_list_cpus
    };
    const std::string cpu_limit = "the places hold more than " + std::to_string(max_list_cpus) +
                                  " CPU numbers in all (counting a CPU once per place it is in), slaw's limit";
    do {
      skip_blanks();
      const std::size_t start = at_;
      if (accept('!')) {
        cpu_set x = place();
        if (excluded.size() == max_list_places) {
          at_ = start;
          fail("more than " + std::to_string(max_list_places) + " excluded places, slaw's limit");
        }
        if (too_many_cpus(x.size())) {
          at_ = start;
          fail(cpu_limit);
        }
        cpus_in_all += x.size();
        excluded.push_back(std::move(x));
        continue;
      }
      const cpu_set p = place();
      long len = 1, stride = 0;
      if (accept(':')) {
        len = number("a number of places", false, 1);
        stride = accept(':') ? number("a stride", true, -static_cast<long>(max_cpu)) : 1;
      }
      // Bounded before any place of the interval is built.
      const auto n = static_cast<std::size_t>(len);
      if (n > max_list_places - places.size()) {
        at_ = start;
        fail("the list has more than " + std::to_string(max_list_places) +
             " places, slaw's limit (a runtime has at most that many workers)");
      }
      if (too_many_cpus(n * p.size())) {  // n <= 4096, p.size() <= 65536: no overflow
        at_ = start;
        fail(cpu_limit);
      }
      cpus_in_all += n * p.size();
      for (long k = 0; k < len; ++k) {
        cpu_set shifted;
        for (unsigned c : p.cpus()) {
          const long cpu = static_cast<long>(c) + k * stride;
          if (cpu < 0 || cpu > static_cast<long>(max_cpu)) {
            at_ = start;
            fail("the interval of places reaches CPU " + std::to_string(cpu) + ", outside 0.." + std::to_string(max_cpu));
          }
          shifted.insert(static_cast<unsigned>(cpu));
        }
        places.push_back(std::move(shifted));
      }
    } while (accept(','));
    for (const cpu_set& x : excluded) {
      std::size_t before = places.size();
      std::erase(places, x);
      if (places.size() == before) fail("'!' excludes the place of CPUs " + x.to_string() + ", which is not in the list");
    }
    if (places.empty()) fail("every place is excluded");
    return places;
  }

  std::string_view text_, variable_;
  std::size_t at_ = 0;
};

}  // namespace

places_spec parse_places(std::string_view value, std::string_view variable) { return parser(value, variable).parse(); }

}  // namespace slaw::places
