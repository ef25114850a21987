// The generator and the printer of random programs (program.hpp).
#include "program.hpp"

#include <sstream>
#include <stdexcept>

namespace rp {

namespace {

struct rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

const char* const feature_table[] = {"scope", "lambda",   "escape",      "call",   "early_return",
                                     "throw", "try",      "slot",        "discard", "moveonly",
                                     "capture", "task_object", "buffer", "isolated", "clause", "task_throw", "work",
                                     "place", "loop"};
constexpr int feature_count = sizeof(feature_table) / sizeof(feature_table[0]);
static_assert(f_all == (1u << (feature_count - 2)) - 1 && f_place == 1u << (feature_count - 2) &&
              f_loop == 1u << (feature_count - 1));

class generator {
 public:
  generator(std::uint64_t seed, const gen_params& p)
      : r_{seed * 0x2545F4914F6CDD1Dull + 0x1234567ull}, pr_{seed * 0x9E6C63D0676A9A99ull + 0x7654321ull},
        lr_{seed * 0xD1342543DE82EF95ull + 0x2468ACEull}, p_(p) {
    // A per-program profile, so that some programs are all spawns, some never throw, some throw a lot.
    for (double& w : weight_) w = r_.uniform(0.2, 1.8);
    weight_[static_cast<int>(stmt_kind::spawn)] *= 2.5;
    static const double throw_rates[] = {0.0, 0.05, 0.15, 0.3};
    static const double ret_rates[] = {0.0, 0.2, 0.5};
    p_throw_ = throw_rates[r_.below(4)];
    p_ret_ = ret_rates[r_.below(3)];
    static const double spawn_work_rates[] = {0.2, 0.5, 0.8};
    p_spawn_work_ = spawn_work_rates[r_.below(3)];
    tasks_left_ = 1 + r_.below(p.max_tasks);
    stmts_left_ = tasks_left_ * (2 + r_.below(4));  // keeps calls and finishes from swamping the spawns
    // Places, from their own stream (pr_): a per-program profile of choices, so that some programs
    // send nearly everything to leaves, some mostly inherit, some use the internal places a lot.
    if (on(f_place))
      for (double& w : place_weight_) w = pr_.chance(0.15) ? 0.0 : pr_.uniform(0.1, 2.0);
  }

  program run() {
    prog_.fns.emplace_back();
    rtype root = pick_rtype(false);
    fill_function(0, root, 0, true, false);
    return std::move(prog_);
  }

 private:
  bool on(std::uint32_t f) const { return (p_.features & f) != 0; }

  rtype pick_rtype(bool need_value) {
    int n = on(f_moveonly) ? 4 : 2;
    int first = need_value ? 1 : 0;
    return static_cast<rtype>(first + r_.below(n - first));
  }

  int new_function(rtype ret, int depth, bool own_finish, bool in_task) {
    int i = static_cast<int>(prog_.fns.size());
    prog_.fns.emplace_back();
    fill_function(i, ret, depth, own_finish, in_task);
    return i;
  }

  // own_finish: the function's top-level spawns join a finish that belongs to it (the root's run
  // finish, a lambda finish body's own); otherwise they escape to the spawner's or caller's finish.
  // in_task: the function runs inside a spawned task (not the root's own calls and finish bodies).
  void fill_function(int i, rtype ret, int depth, bool own_finish, bool in_task) {
    std::vector<stmt> body;
    fill(body, depth, 0, own_finish, in_task);
    function& f = prog_.fns[i];  // fill() may have grown fns
    f.ret = ret;
    f.base = r_.below(1000000);
    f.body = std::move(body);
  }

  void fill(std::vector<stmt>& out, int depth, int nest, bool own_finish, bool in_task, bool in_scope = false) {
    const bool throws = on(in_task ? f_task_throw : f_throw) && in_loop_ == 0;
    const bool deeper = depth < p_.max_depth;
    int n = r_.below(depth <= 1 ? 8 : 5);
    for (int i = 0; i < n && stmts_left_ > 0; ++i) {
      --stmts_left_;
      // A loop, from its own stream (lr_): with f_loop off, the program is what it was without loops.
      if (on(f_loop) && deeper && in_loop_ < 2 && lr_.chance(0.12)) {
        out.push_back(make_loop(depth, in_task));
        continue;
      }
      double w[10] = {};
      auto allow = [&](stmt_kind k, bool ok) {
        if (ok) w[static_cast<int>(k)] = weight_[static_cast<int>(k)];
      };
      allow(stmt_kind::spawn, deeper && tasks_left_ > 0 && (own_finish || on(f_escape)));
      if (in_scope) w[static_cast<int>(stmt_kind::spawn)] *= 2;  // a scope is there to wait for spawns
      allow(stmt_kind::call, deeper && on(f_call));
      allow(stmt_kind::scope, deeper && nest < 3 && on(f_scope));
      allow(stmt_kind::lfinish, deeper && on(f_lambda));
      allow(stmt_kind::try_, nest < 3 && on(f_try) && (on(f_throw) || on(f_task_throw)));
      allow(stmt_kind::buffer, on(f_buffer));
      allow(stmt_kind::isolated, on(f_isolated));
      allow(stmt_kind::work, on(f_work));
      double total = 0;
      for (double x : w) total += x;
      if (total == 0) break;
      double pick = r_.uniform(0, total);
      int k = 0;
      while (k < 9 && (w[k] == 0 || pick >= w[k])) {
        pick -= w[k];
        ++k;
      }
      if (w[k] == 0) break;  // rounding at the top end
      out.push_back(make(static_cast<stmt_kind>(k), depth, nest, own_finish, in_task));
      // Spawn, then compute: the window in which a thief takes the continuation or the child.
      if (k == static_cast<int>(stmt_kind::spawn) && on(f_work) && r_.chance(p_spawn_work_))
        out.push_back(make(stmt_kind::work, depth, nest, own_finish, in_task));
    }
    // A list may end early: by a throw, or by a return that leaves this frame's open scopes.
    if (throws && r_.chance(p_throw_)) {
      stmt s;
      s.kind = stmt_kind::throw_;
      s.id = prog_.throws++;
      out.push_back(std::move(s));
    } else if (nest > 0 && on(f_early_return) && r_.chance(p_ret_)) {
      stmt s;
      s.kind = stmt_kind::ret;
      out.push_back(std::move(s));
    }
  }

  stmt make(stmt_kind k, int depth, int nest, bool own_finish, bool in_task) {
    stmt s;
    s.kind = k;
    switch (k) {
      case stmt_kind::spawn: {
        --tasks_left_;
        s.id = prog_.tasks++;
        rtype t = pick_rtype(false);
        if (t != rtype::void_) {
          bool slot = on(f_slot) && (!on(f_discard) || r_.chance(0.6));
          if (slot) s.slot = true;
          else if (!on(f_discard)) t = rtype::void_;
        }
        int form = r_.below(3);
        if (form == 1 && on(f_task_object)) s.form = spawn_form::task_object;
        if (form == 2 && on(f_capture)) s.form = spawn_form::capture_lambda;
        if (on(f_clause)) s.cl = static_cast<clause>(r_.below(4));
        if (on(f_place)) pick_place(s);
        s.fn = new_function(t, depth + 1, false, true);
        break;
      }
      case stmt_kind::call: {
        s.id = prog_.calls++;
        rtype t = pick_rtype(false);
        s.use = t != rtype::void_ && r_.chance(0.7);
        s.fn = new_function(t, depth + 1, false, in_task);
        break;
      }
      case stmt_kind::scope:
        s.id = prog_.finishes++;
        fill(s.body, depth, nest + 1, true, in_task, true);
        break;
      case stmt_kind::lfinish:
        s.id = prog_.finishes++;
        s.coro_lambda = r_.chance(0.5);
        s.fn = new_function(rtype::void_, depth + 1, true, in_task);
        break;
      case stmt_kind::try_:
        s.id = prog_.tries++;
        fill(s.body, depth, nest + 1, own_finish, in_task);
        break;
      case stmt_kind::buffer: {
        s.id = prog_.buffers++;
        // Small, around, and above a 1024-byte quota (8-byte elements).
        static const std::uint32_t lo[] = {1, 64, 129}, hi[] = {64, 129, 1500};
        int c = r_.below(3);
        s.n = lo[c] + static_cast<std::uint32_t>(r_.below(static_cast<int>(hi[c] - lo[c])));
        break;
      }
      case stmt_kind::work: {
        // Mostly short; sometimes long enough for a parked worker to wake and steal (about 50 µs and up).
        int c = r_.below(10);
        s.nap = c == 0;
        s.n = static_cast<std::uint32_t>(c == 0 ? 100 + r_.below(2000) : c <= 3 ? 20000 + r_.below(100000) : r_.below(2000));
        break;
      }
      default:
        break;
    }
    return s;
  }

  // for_each_index over k calls, each of a function of its own that may spawn (its tasks join the loop)
  // but never throws (program.hpp, f_loop).
  stmt make_loop(int depth, bool in_task) {
    stmt s;
    s.kind = stmt_kind::loop;
    s.id = prog_.finishes++;
    s.cl = static_cast<clause>(lr_.below(4));
    s.n = lr_.chance(0.3) ? 1 + static_cast<std::uint32_t>(lr_.below(3)) : 0;
    const int k = 1 + lr_.below(8);
    ++in_loop_;
    for (int i = 0; i < k; ++i) {
      s.loop_calls.push_back(prog_.calls++);
      s.loop_fns.push_back(new_function(pick_rtype(false), depth + 1, true, in_task));
    }
    --in_loop_;
    return s;
  }

  void pick_place(stmt& s) {
    double total = 0;
    for (double w : place_weight_) total += w;
    s.pk = static_cast<std::uint32_t>(pr_.next() >> 40);
    if (total == 0) return;  // inherit
    double pick = pr_.uniform(0, total);
    int k = 0;
    while (k < place_choices - 1 && pick >= place_weight_[k]) pick -= place_weight_[k++];
    s.pl = static_cast<place_choice>(k);
  }

  static constexpr int place_choices = 6;
  rng r_;
  rng pr_;  // place clauses only: the rest of a program does not depend on f_place
  rng lr_;  // loops only (f_loop)
  int in_loop_ = 0;  // loops around the function being generated: nothing there throws
  double place_weight_[place_choices] = {};
  gen_params p_;
  program prog_;
  double weight_[10];
  double p_throw_, p_ret_, p_spawn_work_;
  int tasks_left_, stmts_left_;
};

const char* clause_text(clause c) {
  switch (c) {
    case clause::wf: return "slaw::wf, ";
    case clause::hf: return "slaw::hf, ";
    case clause::dyn: return "slaw::dyn, ";
    default: return "";
  }
}

std::string place_text(const stmt& s) {
  const std::string leaf = "slaw::place(" + std::to_string(s.pk) + " % slaw::num_places())";
  switch (s.pl) {
    case place_choice::inherit: return "";
    case place_choice::here: return "slaw::at(slaw::here()), ";
    case place_choice::leaf: return "slaw::at(" + leaf + "), ";
    case place_choice::parent: return "slaw::at(" + leaf + ".parent()), ";
    case place_choice::grandparent: return "slaw::at(" + leaf + ".parent().parent()), ";
    case place_choice::root: return "slaw::at(slaw::root_place()), ";
  }
  return "";
}

void print_list(std::ostringstream& o, const program& p, const std::vector<stmt>& list, int indent) {
  std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  for (const stmt& s : list) {
    switch (s.kind) {
      case stmt_kind::spawn: {
        rtype t = p.fns[s.fn].ret;
        o << pad << "co_await slaw::async(" << place_text(s) << clause_text(s.cl);
        if (s.slot) o << "&slot" << s.id << ", ";
        if (s.form == spawn_form::fn_args) o << "f" << s.fn << ", ctx";
        else if (s.form == spawn_form::task_object) o << "f" << s.fn << "(ctx)";
        else o << "[cn = canary(" << s.id << "), &ctx]() -> task<" << to_string(t) << "> { co_return co_await f" << s.fn << "(ctx); }";
        o << ");  // task " << s.id << (s.slot ? "" : t != rtype::void_ ? ", result dropped" : "") << "\n";
        break;
      }
      case stmt_kind::call:
        o << pad << (s.use ? "acc += value(" : "(void)(") << "co_await f" << s.fn << "(ctx));  // call " << s.id << "\n";
        break;
      case stmt_kind::scope:
        o << pad << "auto s" << s.id << " = co_await slaw::start_finish();  // finish " << s.id << "\n";
        print_list(o, p, s.body, indent + 1);
        o << pad << "co_await slaw::end_finish(s" << s.id << ");\n";
        break;
      case stmt_kind::lfinish:
        o << pad << "co_await slaw::finish([&]" << (s.coro_lambda ? "() -> task<> { co_await " : " { return ") << "f"
          << s.fn << "(ctx); });  // finish " << s.id << "\n";
        break;
      case stmt_kind::try_:
        o << pad << "try {  // try " << s.id << "\n";
        print_list(o, p, s.body, indent + 1);
        o << pad << "} catch (test_error&) {}\n";
        break;
      case stmt_kind::throw_: o << pad << "throw test_error{" << s.id << "};\n"; break;
      case stmt_kind::ret: o << pad << "co_return acc;\n"; break;
      case stmt_kind::buffer:
        o << pad << "auto b" << s.id << " = co_await slaw::make_buffer<std::uint64_t>(" << s.n << ");\n";
        break;
      case stmt_kind::isolated: o << pad << "slaw::isolated([&] { ++ctx.shared; });\n"; break;
      case stmt_kind::work: o << pad << (s.nap ? "nap(" : "spin(") << s.n << (s.nap ? " us" : "") << ");\n"; break;
      case stmt_kind::loop: {
        o << pad << "co_await slaw::for_each_index(" << clause_text(s.cl);
        if (s.n) o << "slaw::grain(" << s.n << "), ";
        o << "0, " << s.loop_fns.size() << ", [&](int i) -> task<> { co_await fns[i](ctx); });  // finish " << s.id
          << ", iteration i: ";
        for (std::size_t i = 0; i < s.loop_fns.size(); ++i)
          o << (i ? ", " : "") << "f" << s.loop_fns[i] << " (call " << s.loop_calls[i] << ")";
        o << "\n";
        break;
      }
    }
  }
}

}  // namespace

const char* to_string(rtype t) {
  switch (t) {
    case rtype::void_: return "void";
    case rtype::long_: return "long";
    case rtype::counted: return "counted";
    case rtype::uptr: return "std::unique_ptr<counted>";
  }
  return "?";
}

std::uint32_t parse_features(const std::string& s) {
  std::uint32_t mask = 0;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t end = s.find(',', pos);
    if (end == std::string::npos) end = s.size();
    std::string name = s.substr(pos, end - pos);
    pos = end + 1;
    if (name.empty()) continue;
    bool minus = name[0] == '-';
    if (minus || name[0] == '+') name = name.substr(1);
    std::uint32_t bit = 0;
    if (name == "all") bit = f_all;
    for (int i = 0; i < feature_count; ++i)
      if (name == feature_table[i]) bit = 1u << i;
    if (!bit) throw std::invalid_argument("unknown feature '" + name + "' (known: all, " + feature_names(f_all) + ")");
    mask = minus ? mask & ~bit : mask | bit;
  }
  return mask;
}

std::string feature_names(std::uint32_t mask) {
  if (mask == f_all) return "all";
  if (mask == (f_all | f_place)) return "all,place";
  if (mask == (f_all | f_loop)) return "all,loop";
  if (mask == (f_all | f_place | f_loop)) return "all,place,loop";
  std::string out;
  for (int i = 0; i < feature_count; ++i)
    if (mask & (1u << i)) {
      if (!out.empty()) out += ',';
      out += feature_table[i];
    }
  return out.empty() ? "none" : out;
}

program generate(std::uint64_t seed, const gen_params& p) { return generator(seed, p).run(); }

std::string to_string(const program& p) {
  std::ostringstream o;
  o << "// " << p.tasks << " tasks (task 0 = root), " << p.finishes << " finishes (finish 0 = runtime::run's)\n";
  for (std::size_t i = 0; i < p.fns.size(); ++i) {
    const function& f = p.fns[i];
    o << "task<" << to_string(f.ret) << "> f" << i << "(ctx&) {" << (i == 0 ? "  // root" : "") << "\n  long acc = "
      << f.base << ";\n";
    print_list(o, p, f.body, 1);
    o << "  co_return" << (f.ret == rtype::void_ ? "" : " acc") << ";\n}\n";
  }
  return o.str();
}

}  // namespace rp
