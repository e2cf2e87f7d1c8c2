// Status codes for the runtime: one enum (status.def), one mapping to MPI classes.
// Lower layers return Status; lib/mpi turns a failing Status into an MPI error
// class plus a message naming the call, the argument and the value.
#pragma once
#include <string_view>

namespace chorus {

enum class [[nodiscard]] Status : int {
#define CHORUS_STATUS(id, cls, text) id,
#include "core/status.def"
#undef CHORUS_STATUS
};

int to_mpi_class(Status s);
std::string_view to_string(Status s);
inline bool ok(Status s) { return s == Status::Ok; }

}  // namespace chorus

// Propagate a failing Status to the caller.
#define CHORUS_TRY(expr)                                  \
  do {                                                    \
    ::chorus::Status chorus_try_s_ = (expr);              \
    if (chorus_try_s_ != ::chorus::Status::Ok) return chorus_try_s_; \
  } while (0)
