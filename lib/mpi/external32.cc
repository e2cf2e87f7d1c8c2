// MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the
// "external32" representation (MPI-4.1 19.1.5): every basic element big-endian,
// at the standard's fixed sizes (MPI_LONG is 4 bytes there, MPI_LONG_DOUBLE a
// 16-byte IEEE quad). Data goes through the native packed form (core/datatype.h),
// whose element runs name each element's predefined type.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "mpi/api.h"

namespace chorus::mpi {
namespace {

enum class Rep { Bytes, Signed, Unsigned, Float, LongDouble };

struct Ext {
  std::size_t size;  // external bytes of one element
  Rep rep;
  int parts = 1;     // complex types: two floating parts
};

Ext ext_of(MPI_Datatype t, std::size_t native) {
  const MPI_Datatype sgn[] = {MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG_INT, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T,
                              MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER, MPI_INTEGER2, MPI_INTEGER4,
                              MPI_INTEGER8, MPI_LOGICAL, MPI_SIGNED_CHAR, MPI_INT8_T, MPI_INTEGER1};
  const MPI_Datatype uns[] = {MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG,
                              MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_WCHAR, MPIX_C_FLOAT16, MPIX_BFLOAT16};
  const MPI_Datatype flt[] = {MPI_FLOAT, MPI_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8};
  const MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX,
                               MPI_CXX_DOUBLE_COMPLEX, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX8, MPI_COMPLEX16};
  const MPI_Datatype ldbl[] = {MPI_LONG_DOUBLE, MPI_REAL16};
  const MPI_Datatype ldcplx[] = {MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_COMPLEX32};
  auto in = [t](const auto& list) { return std::find(std::begin(list), std::end(list), t) != std::end(list); };
  if (t == MPI_LONG || t == MPI_UNSIGNED_LONG) return {4, t == MPI_LONG ? Rep::Signed : Rep::Unsigned};
  if (in(sgn)) return {native, Rep::Signed};
  if (in(uns)) return {native, Rep::Unsigned};
  if (in(flt)) return {native, Rep::Float};
  if (in(cplx)) return {native, Rep::Float, 2};
  if (in(ldbl)) return {16, Rep::LongDouble};
  if (in(ldcplx)) return {32, Rep::LongDouble, 2};
  return {native, Rep::Bytes};  // chars, bytes, booleans, MPI_PACKED
}

std::size_t ext_size(const TypeInfo& t) {
  std::size_t n = 0;
  for (const ElementRun& r : t.runs) n += r.n * ext_of(r.type, r.size).size;
  return n;
}

void reverse_copy_bytes(const std::byte* from, std::byte* to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = from[n - 1 - i];
}

// One element, native (`nsize` bytes) to external, or back.
void to_ext(const std::byte* nat, std::size_t nsize, const Ext& e, std::byte* ext) {
  switch (e.rep) {
    case Rep::Bytes:
      std::memcpy(ext, nat, e.size);
      return;
    case Rep::Signed:
    case Rep::Unsigned:  // little-endian native: the low e.size bytes, reversed
      reverse_copy_bytes(nat, ext, std::min(nsize, e.size));
      return;
    case Rep::Float: {
      const std::size_t part = e.size / static_cast<std::size_t>(e.parts);
      for (int k = 0; k < e.parts; ++k) reverse_copy_bytes(nat + k * part, ext + k * part, part);
      return;
    }
    case Rep::LongDouble: {
      const std::size_t npart = nsize / static_cast<std::size_t>(e.parts);
      for (int k = 0; k < e.parts; ++k) {
        long double v;
        std::memcpy(&v, nat + static_cast<std::size_t>(k) * npart, sizeof v);
        const __float128 q = static_cast<__float128>(v);
        std::byte b[16];
        std::memcpy(b, &q, 16);
        reverse_copy_bytes(b, ext + 16 * k, 16);
      }
      return;
    }
  }
}

void from_ext(const std::byte* ext, const Ext& e, std::byte* nat, std::size_t nsize) {
  switch (e.rep) {
    case Rep::Bytes:
      std::memcpy(nat, ext, nsize);
      return;
    case Rep::Signed:
    case Rep::Unsigned: {
      reverse_copy_bytes(ext, nat, std::min(nsize, e.size));
      if (nsize > e.size) {  // widen: sign- or zero-extend
        const bool neg = e.rep == Rep::Signed && (static_cast<unsigned>(ext[0]) & 0x80u);
        std::memset(nat + e.size, neg ? 0xff : 0, nsize - e.size);
      }
      return;
    }
    case Rep::Float: {
      const std::size_t part = e.size / static_cast<std::size_t>(e.parts);
      for (int k = 0; k < e.parts; ++k) reverse_copy_bytes(ext + k * part, nat + k * part, part);
      return;
    }
    case Rep::LongDouble: {
      const std::size_t npart = nsize / static_cast<std::size_t>(e.parts);
      for (int k = 0; k < e.parts; ++k) {
        std::byte b[16];
        reverse_copy_bytes(ext + 16 * k, b, 16);
        __float128 q;
        std::memcpy(&q, b, 16);
        const long double v = static_cast<long double>(q);
        std::memset(nat + static_cast<std::size_t>(k) * npart, 0, npart);
        std::memcpy(nat + static_cast<std::size_t>(k) * npart, &v, std::min(npart, sizeof v));
      }
      return;
    }
  }
}

// Convert `count` elements of `t` between the native packed form and external32.
void convert(const TypeInfo& t, std::size_t count, const std::byte* in, std::byte* out, bool to_external) {
  std::vector<Ext> exts;
  for (const ElementRun& r : t.runs) exts.push_back(ext_of(r.type, r.size));
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t k = 0; k < t.runs.size(); ++k) {
      const ElementRun& r = t.runs[k];
      const Ext& e = exts[k];
      for (std::size_t j = 0; j < r.n; ++j) {
        if (to_external) to_ext(in, r.size, e, out);
        else from_ext(in, e, out, r.size);
        in += to_external ? r.size : e.size;
        out += to_external ? e.size : r.size;
      }
    }
}

int check_datarep(const char* call, const char* datarep) {
  if (!datarep) return fail(nullptr, MPI_ERR_ARG, "{}: datarep is NULL", call);
  if (std::string(datarep) != "external32")
    return fail(nullptr, MPI_ERR_ARG, "{}: datarep is \"{}\"; the one data representation is \"external32\"", call,
                datarep);
  return MPI_SUCCESS;
}

int check_args(const char* call, const char* datarep, int count, MPI_Datatype type, const TypeInfo** ti) {
  CHORUS_TRY_MPI(check_running(call));
  CHORUS_TRY_MPI(check_datarep(call, datarep));
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "{}: count is {}, must be non-negative", call, count);
  CHORUS_TRY_MPI(check_type(call, nullptr, type, ti));
  if (!(*ti)->committed)
    return fail(nullptr, MPI_ERR_TYPE, "{}: datatype {} is not committed", call, type_label(type));
  return MPI_SUCCESS;
}

int check_host(const char* call, const char* arg, const void* p, const TypeInfo& t, int count) {
  if (count > 0 && t.size > 0 && gpu::on_device(static_cast<const std::byte*>(p) + t.true_lb))
    return fail(nullptr, MPI_ERR_BUFFER, "{}: {} {} is device memory; external32 packing takes host memory", call,
                arg, p);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size) {
  const char* call = "MPI_Pack_external_size";
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_args(call, datarep, incount, datatype, &ti));
  if (!size) return fail(nullptr, MPI_ERR_ARG, "{}: size is NULL", call);
  *size = static_cast<MPI_Aint>(static_cast<std::size_t>(incount) * ext_size(*ti));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack_external_size)

int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  const char* call = "MPI_Pack_external";
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_args(call, datarep, incount, datatype, &ti));
  if (!position) return fail(nullptr, MPI_ERR_ARG, "{}: position is NULL", call);
  CHORUS_TRY_MPI(check_host(call, "inbuf", inbuf, *ti, incount));
  const std::size_t n = static_cast<std::size_t>(incount);
  const std::size_t bytes = n * ext_size(*ti);
  if (*position < 0 || *position + static_cast<MPI_Aint>(bytes) > outsize)
    return fail(nullptr, MPI_ERR_TRUNCATE, "{}: {} bytes at position {} do not fit in outsize {}", call, bytes,
                *position, outsize);
  if (bytes == 0) return MPI_SUCCESS;
  if (!outbuf) return fail(nullptr, MPI_ERR_BUFFER, "{}: outbuf is NULL", call);
  std::vector<std::byte> native(n * ti->size);
  type_pack(*ti, inbuf, n, native.data());
  convert(*ti, n, native.data(), static_cast<std::byte*>(outbuf) + *position, true);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack_external)

int PMPI_Unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                         void* outbuf, int outcount, MPI_Datatype datatype) {
  const char* call = "MPI_Unpack_external";
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_args(call, datarep, outcount, datatype, &ti));
  if (!position) return fail(nullptr, MPI_ERR_ARG, "{}: position is NULL", call);
  CHORUS_TRY_MPI(check_host(call, "outbuf", outbuf, *ti, outcount));
  const std::size_t n = static_cast<std::size_t>(outcount);
  const std::size_t bytes = n * ext_size(*ti);
  if (*position < 0 || *position + static_cast<MPI_Aint>(bytes) > insize)
    return fail(nullptr, MPI_ERR_TRUNCATE, "{}: {} bytes from position {} run past insize {}", call, bytes,
                *position, insize);
  if (bytes == 0) return MPI_SUCCESS;
  if (!inbuf) return fail(nullptr, MPI_ERR_BUFFER, "{}: inbuf is NULL", call);
  std::vector<std::byte> native(n * ti->size);
  convert(*ti, n, static_cast<const std::byte*>(inbuf) + *position, native.data(), false);
  type_unpack(*ti, native.data(), n, outbuf);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Unpack_external)

}  // extern "C"
