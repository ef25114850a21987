// Random async/finish programs: the syntax tree, the generator (a program is a function of its seed, the
// feature mask and the size) and a printer that shows a program as the C++ it stands for.
//
// A program is a tree of functions: every function is used by exactly one statement (a spawn, a call or
// a lambda-form finish), so every statement runs at most once per run and ids can name dynamic events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rp {

// What a function returns: task<void>, task<long>, task<counted>, task<std::unique_ptr<counted>>.
enum class rtype : std::uint8_t { void_, long_, counted, uptr };
enum class clause : std::uint8_t { none, wf, hf, dyn };
// How a spawn names its task: async(f, args...), async(f(args...)), async([captures](args) -> task {...}, args).
enum class spawn_form : std::uint8_t { fn_args, task_object, capture_lambda };
// A spawn's place clause, abstract because the program does not know the place tree it will run on
// (resolved at run time by the runner, against a snapshot of the same tree by the oracle; L = leaf
// k mod num_places):
//   inherit: no clause (the parent's place)   here: at(here())   leaf: at(place(L))
//   parent: at(place(L).parent())   grandparent: at(place(L).parent().parent())   root: at(root_place())
enum class place_choice : std::uint8_t { inherit, here, leaf, parent, grandparent, root };

enum class stmt_kind : std::uint8_t {
  spawn,     // co_await slaw::async([clause,] [&slot,] callee...)
  call,      // [acc += ] co_await callee()
  scope,     // auto s = co_await start_finish(); body; co_await end_finish(s);   (body in this frame)
  lfinish,   // co_await slaw::finish(lambda running callee)
  try_,      // try { body } catch (test_error&) {}                             (body in this frame)
  throw_,    // throw test_error{id}
  ret,       // co_return acc;  (early: leaves the open scopes of this frame without end_finish)
  buffer,    // auto b = co_await slaw::make_buffer<uint64_t>(n);  held until the frame ends
  isolated,  // slaw::isolated([&] { ++shared; })
  work,      // a busy loop of n steps, or a sleep of n µs: time for thieves, and for a parked worker to wake
  loop,      // co_await slaw::for_each_index([clause,] [grain,] 0, k, i -> co_await loop_fns[i]())  (finish `id`)
};

struct stmt {
  stmt_kind kind = stmt_kind::isolated;
  int id = -1;  // spawn: task id; scope/lfinish: finish id; try_/throw_/call/buffer: their own numbering
  int fn = -1;  // spawn/call/lfinish: the callee
  clause cl = clause::none;
  place_choice pl = place_choice::inherit;  // spawn: its place clause
  std::uint32_t pk = 0;                     // spawn: k of leaf/parent/grandparent
  spawn_form form = spawn_form::fn_args;
  bool slot = false;         // spawn: the result goes to a slot (else it is discarded)
  bool use = false;          // call: the result is added to the caller's accumulator
  bool coro_lambda = false;  // lfinish: body is a coroutine lambda calling callee (else returns its task)
  std::uint32_t n = 0;       // buffer: elements; work: steps, or µs if nap
  bool nap = false;          // work: sleep rather than spin
  std::vector<stmt> body;    // scope/try_
  // loop: iteration i is a call of loop_fns[i] (call id loop_calls[i]); the loop is finish `id`: it
  // waits for every task spawned inside its iterations. `n`: the grain clause (0: none).
  std::vector<int> loop_fns, loop_calls;
};

struct function {
  rtype ret = rtype::void_;
  long base = 0;  // the accumulator's start; the function returns it plus its used call results
  std::vector<stmt> body;
};

// Feature bits: the generator uses only the enabled ones (SLAW_RANDOM_FEATURES, to bisect).
enum feature : std::uint32_t {
  f_scope = 1u << 0,         // start_finish/end_finish
  f_lambda = 1u << 1,        // finish(lambda)
  f_escape = 1u << 2,        // spawns not enclosed by a finish of their own frame (join a caller's)
  f_call = 1u << 3,          // sequential calls
  f_early_return = 1u << 4,  // co_return with scopes open
  f_throw = 1u << 5,         // throw statements outside spawned tasks (the root, its callees, finish bodies)
  f_try = 1u << 6,           // try/catch in the throwing or an outer frame
  f_slot = 1u << 7,          // async(&slot, ...)
  f_discard = 1u << 8,       // async(...) of a task<T>, T not void: the result is dropped
  f_moveonly = 1u << 9,      // results of type counted and unique_ptr<counted>
  f_capture = 1u << 10,      // capturing coroutine lambdas passed to async
  f_task_object = 1u << 11,  // async(f(args)) rather than async(f, args)
  f_buffer = 1u << 12,       // make_buffer (sizes above a 1024-byte quota included)
  f_isolated = 1u << 13,     // slaw::isolated
  f_clause = 1u << 14,       // explicit wf/hf/dyn clauses
  f_task_throw = 1u << 15,   // throw statements inside spawned tasks (their exceptions go to a finish)
  f_work = 1u << 16,         // busy loops
  f_all = (1u << 17) - 1,    // every feature above; `place` is not part of "all"
  // Place clauses on spawns (slaw::at). Not in "all": it needs a place tree (test_random_places adds
  // it). Its choices come from a random stream of their own, so a seed gives the same program with or
  // without places, clauses aside.
  f_place = 1u << 17,
  // Parallel loops (slaw::for_each_index over calls of distinct functions). Not in "all", so that a seed
  // gives the program it gave before loops existed; the tests add it (SLAW_RANDOM_FEATURES=all,loop). Its
  // choices come from a stream of their own. Nothing inside a loop throws: a thrown exception stops a
  // loop's other iterations at their next chunk (docs/guide/algorithms.md), which the oracle cannot predict.
  f_loop = 1u << 18,
};

// "all", "all,-throw,-capture", "scope,call,slot", "all,place" (names as in feature_name). Throws on an
// unknown name.
std::uint32_t parse_features(const std::string& s);
std::string feature_names(std::uint32_t mask);

struct gen_params {
  std::uint32_t features = f_all;
  int max_tasks = 40;   // spawns per program, at most
  int max_depth = 5;    // frames (calls, spawns, finish bodies) below the root, at most
};

struct program {
  std::vector<function> fns;  // fns[0] is the root, run by runtime::run as task 0 in finish 0
  int tasks = 1;              // task ids: 0 the root, 1.. the spawns
  int finishes = 1;           // finish ids: 0 runtime::run's implicit finish, 1.. scopes and lambda finishes
  int tries = 0, throws = 0, calls = 0, buffers = 0;
};

program generate(std::uint64_t seed, const gen_params& p);
std::string to_string(const program& p);
const char* to_string(rtype t);

}  // namespace rp
