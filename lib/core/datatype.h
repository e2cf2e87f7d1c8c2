// Datatypes. Today: every predefined datatype of the MPICH ABI (contiguous
// storage; the pair types carry their C struct padding in their extent).
#pragma once
#include <cstddef>
#include <cstdint>
#include <mpi.h>

namespace chorus {

struct TypeInfo {
  const char* name;
  std::size_t size;        // MPI_Type_size: bytes of data
  std::ptrdiff_t extent;   // bytes one element spans in memory
  int elements;            // basic elements per item (2 for the pair types)
  std::size_t first_size;  // size of the first basic element (for Get_elements)
};

// nullptr for MPI_DATATYPE_NULL, unknown handles, and handles that are not datatypes.
const TypeInfo* type_info(MPI_Datatype t);

// Bytes on the wire for `count` items (items are stored contiguously, extent apart).
inline std::size_t wire_bytes(const TypeInfo& t, std::size_t count) {
  return count * static_cast<std::size_t>(t.extent);
}

// MPI_Get_count from received bytes: MPI_UNDEFINED unless whole items arrived.
long long count_from_bytes(const TypeInfo& t, std::size_t bytes);
// MPI_Get_elements from received bytes.
long long elements_from_bytes(const TypeInfo& t, std::size_t bytes);

// For iteration in tests and chorus-info.
int builtin_type_count();
MPI_Datatype builtin_type_at(int i);

}  // namespace chorus
