// Communicator handles and the argument checks shared by every call.
#include <numeric>

#include "core/handle.h"
#include "mpi/api.h"
#include "p2p/tag.h"

namespace chorus::mpi {
namespace {

Comm g_world;
Comm g_self;

// Attribute values handed out by MPI_Comm_get_attr (pointers to these).
int g_tag_ub = tag::kTagUB;
int g_wtime_is_global = 1;
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;
int g_universe_size = 1;
int g_appnum = 0;
int g_lastusedcode = kMaxErrorClass;

}  // namespace

Comm& world() { return g_world; }

void comms_init(const launcher::JobInfo& job) {
  g_world = Comm{};
  g_world.handle = MPI_COMM_WORLD;
  g_world.rank = job.rank;
  g_world.size = job.size;
  g_world.world_of.resize(static_cast<std::size_t>(job.size));
  std::iota(g_world.world_of.begin(), g_world.world_of.end(), 0);
  g_world.ctx_p2p = 0;
  g_world.ctx_coll = 1;
  g_world.name = "MPI_COMM_WORLD";

  g_self = Comm{};
  g_self.handle = MPI_COMM_SELF;
  g_self.rank = 0;
  g_self.size = 1;
  g_self.world_of = {job.rank};
  g_self.ctx_p2p = 2;
  g_self.ctx_coll = 3;
  g_self.name = "MPI_COMM_SELF";

  g_universe_size = job.size;
  g_wtime_is_global = job.num_nodes <= 1 ? 1 : 0;
}

void comms_finalize() {}

Comm* comm_lookup(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return &g_world;
  if (c == MPI_COMM_SELF) return &g_self;
  return nullptr;
}

int check_comm(const char* call, MPI_Comm c, Comm** out) {
  Comm* p = comm_lookup(c);
  if (!p) {
    if (c == MPI_COMM_NULL) return fail(nullptr, MPI_ERR_COMM, "{}: comm is MPI_COMM_NULL", call);
    return fail(nullptr, MPI_ERR_COMM, "{}: invalid communicator handle 0x{:x}", call,
                static_cast<unsigned>(c));
  }
  *out = p;
  return MPI_SUCCESS;
}

int check_count(const char* call, Comm* c, int count, const char* arg) {
  if (count < 0) return fail(c, MPI_ERR_COUNT, "{}: {} is {}, must be non-negative", call, arg, count);
  return MPI_SUCCESS;
}

int check_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out, const char* arg) {
  const TypeInfo* ti = type_info(t);
  if (!ti) {
    if (t == MPI_DATATYPE_NULL) return fail(c, MPI_ERR_TYPE, "{}: {} is MPI_DATATYPE_NULL", call, arg);
    return fail(c, MPI_ERR_TYPE, "{}: invalid {} handle 0x{:x}", call, arg, static_cast<unsigned>(t));
  }
  *out = ti;
  return MPI_SUCCESS;
}

int check_buffer(const char* call, Comm* c, const void* buf, int count, const char* arg) {
  if (buf == nullptr && count > 0)
    return fail(c, MPI_ERR_BUFFER, "{}: {} is NULL with count {}", call, arg, count);
  return MPI_SUCCESS;
}

int check_rank(const char* call, Comm* c, int rank, const char* arg, bool any_ok) {
  if (rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE)) return MPI_SUCCESS;
  if (rank < 0 || rank >= c->size)
    return fail(c, MPI_ERR_RANK, "{}: {} is {}, must be in [0, {}){} or MPI_PROC_NULL", call, arg,
                rank, c->size, any_ok ? ", MPI_ANY_SOURCE" : "");
  return MPI_SUCCESS;
}

int check_tag(const char* call, Comm* c, int tag, bool any_ok) {
  if (any_ok && tag == MPI_ANY_TAG) return MPI_SUCCESS;
  if (tag < 0 || tag > tag::kTagUB)
    return fail(c, MPI_ERR_TAG, "{}: tag is {}, must be in [0, {}]{}", call, tag, tag::kTagUB,
                any_ok ? " or MPI_ANY_TAG" : "");
  return MPI_SUCCESS;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_size"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_size", comm, &c));
  if (!size) return fail(c, MPI_ERR_ARG, "MPI_Comm_size: size is NULL");
  *size = c->size;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_rank"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_rank", comm, &c));
  if (!rank) return fail(c, MPI_ERR_ARG, "MPI_Comm_rank: rank is NULL");
  *rank = c->rank;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_rank)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_get_attr"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_get_attr", comm, &c));
  if (!attribute_val || !flag)
    return fail(c, MPI_ERR_ARG, "MPI_Comm_get_attr: {} is NULL", flag ? "attribute_val" : "flag");
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &g_tag_ub; break;
    case MPI_WTIME_IS_GLOBAL: value = &g_wtime_is_global; break;
    case MPI_HOST: value = &g_host; break;
    case MPI_IO: value = &g_io; break;
    case MPI_UNIVERSE_SIZE: value = &g_universe_size; break;
    case MPI_APPNUM: value = &g_appnum; break;
    case MPI_LASTUSEDCODE: value = &g_lastusedcode; break;
    default: {
      auto it = c->attrs.find(keyval);
      *flag = it != c->attrs.end();
      if (*flag) *static_cast<void**>(attribute_val) = it->second;
      if (!*flag && handle::object(keyval) != handle::Keyval)
        return fail(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr: invalid keyval 0x{:x}",
                    static_cast<unsigned>(keyval));
      return MPI_SUCCESS;
    }
  }
  *static_cast<int**>(attribute_val) = value;
  *flag = 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_attr)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
CHORUS_ALIAS(MPI_Attr_get)

int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_get_name"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_get_name", comm, &c));
  if (!name || !resultlen)
    return fail(c, MPI_ERR_ARG, "MPI_Comm_get_name: {} is NULL", name ? "resultlen" : "name");
  std::size_t n = std::min<std::size_t>(c->name.size(), MPI_MAX_OBJECT_NAME - 1);
  c->name.copy(name, n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_name)

}  // extern "C"
