#include "core/status.h"

#include <mpi.h>

namespace chorus {

int to_mpi_class(Status s) {
  switch (s) {
#define CHORUS_STATUS(id, cls, text) case Status::id: return cls;
#include "core/status.def"
#undef CHORUS_STATUS
  }
  return MPI_ERR_UNKNOWN;
}

std::string_view to_string(Status s) {
  switch (s) {
#define CHORUS_STATUS(id, cls, text) case Status::id: return text;
#include "core/status.def"
#undef CHORUS_STATUS
  }
  return "unknown status";
}

}  // namespace chorus
