// slaw: a C++20 task-parallel runtime (SLAW adaptive work-first/help-first work stealing).
#pragma once

#include "slaw/algorithm.hpp"
#include "slaw/async.hpp"
#include "slaw/config.hpp"
#include "slaw/external.hpp"
#include "slaw/finish.hpp"
#include "slaw/isolated.hpp"
#include "slaw/memory.hpp"
#include "slaw/place.hpp"
#include "slaw/runtime.hpp"
#include "slaw/stats.hpp"
#include "slaw/task.hpp"
