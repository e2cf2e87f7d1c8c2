#include "gpu/kernels/dispatch.h"

#include "core/datatype.h"
#include "core/op.h"

namespace chorus::gpu::detail {
namespace {

// chorus_reduce_<op>_<type> for every op x type (bitwise x float excluded below).
#define CHORUS_KNAMES(op)                                                              \
  {"chorus_reduce_" #op "_i8",  "chorus_reduce_" #op "_u8",  "chorus_reduce_" #op "_i16", \
   "chorus_reduce_" #op "_u16", "chorus_reduce_" #op "_i32", "chorus_reduce_" #op "_u32", \
   "chorus_reduce_" #op "_i64", "chorus_reduce_" #op "_u64", "chorus_reduce_" #op "_f16", \
   "chorus_reduce_" #op "_bf16", "chorus_reduce_" #op "_f32", "chorus_reduce_" #op "_f64"}
constexpr const char* kNames[kNumKOps][kNumKTypes] = {
    CHORUS_KNAMES(sum),  CHORUS_KNAMES(prod), CHORUS_KNAMES(min), CHORUS_KNAMES(max),
    CHORUS_KNAMES(land), CHORUS_KNAMES(lor),  CHORUS_KNAMES(lxor), CHORUS_KNAMES(band),
    CHORUS_KNAMES(bor),  CHORUS_KNAMES(bxor)};
#undef CHORUS_KNAMES

bool is_float(KType t) {
  return t == KType::F16 || t == KType::BF16 || t == KType::F32 || t == KType::F64;
}

template <typename T>
constexpr KType int_type() {
  constexpr bool s = static_cast<T>(-1) < static_cast<T>(0);
  switch (sizeof(T)) {
    case 1: return s ? KType::I8 : KType::U8;
    case 2: return s ? KType::I16 : KType::U16;
    case 4: return s ? KType::I32 : KType::U32;
    default: return s ? KType::I64 : KType::U64;
  }
}

// Element type of a predefined type as the kernels see it (storage only: whether
// the op is allowed is op_check's business). False: no kernel type.
bool ktype_of(MPI_Datatype t, KType* out) {
  switch (t) {
    case MPI_SIGNED_CHAR: *out = int_type<signed char>(); return true;
    case MPI_UNSIGNED_CHAR: *out = int_type<unsigned char>(); return true;
    case MPI_SHORT: *out = int_type<short>(); return true;
    case MPI_UNSIGNED_SHORT: *out = int_type<unsigned short>(); return true;
    case MPI_INT: *out = int_type<int>(); return true;
    case MPI_UNSIGNED: *out = int_type<unsigned>(); return true;
    case MPI_LONG: *out = int_type<long>(); return true;
    case MPI_UNSIGNED_LONG: *out = int_type<unsigned long>(); return true;
    case MPI_LONG_LONG_INT: *out = int_type<long long>(); return true;
    case MPI_UNSIGNED_LONG_LONG: *out = int_type<unsigned long long>(); return true;
    case MPI_AINT: *out = int_type<MPI_Aint>(); return true;
    case MPI_OFFSET: *out = int_type<MPI_Offset>(); return true;
    case MPI_COUNT: *out = int_type<MPI_Count>(); return true;
    case MPI_INT8_T: case MPI_INTEGER1: *out = KType::I8; return true;
    case MPI_INT16_T: case MPI_INTEGER2: *out = KType::I16; return true;
    case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: *out = KType::I32; return true;
    case MPI_INT64_T: case MPI_INTEGER8: *out = KType::I64; return true;
    case MPI_UINT8_T: *out = KType::U8; return true;
    case MPI_UINT16_T: *out = KType::U16; return true;
    case MPI_UINT32_T: *out = KType::U32; return true;
    case MPI_UINT64_T: *out = KType::U64; return true;
    // Logical types: the kernels' logical ops give 1/0 of the storage type.
    case MPI_C_BOOL: case MPI_CXX_BOOL: *out = int_type<unsigned char>(); return sizeof(bool) == 1;
    case MPI_LOGICAL: *out = KType::I32; return true;
    case MPI_BYTE: *out = KType::U8; return true;  // bitwise ops only
    case MPIX_C_FLOAT16: *out = KType::F16; return true;
    case MPIX_BFLOAT16: *out = KType::BF16; return true;
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: *out = KType::F32; return true;
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: *out = KType::F64; return true;
    default: return false;  // long double, complex, pairs, char types, MPI_PACKED
  }
}

bool kop_of(MPI_Op op, KOp* out) {
  switch (op) {
    case MPI_SUM: *out = KOp::Sum; return true;
    case MPI_PROD: *out = KOp::Prod; return true;
    case MPI_MIN: *out = KOp::Min; return true;
    case MPI_MAX: *out = KOp::Max; return true;
    case MPI_LAND: *out = KOp::Land; return true;
    case MPI_LOR: *out = KOp::Lor; return true;
    case MPI_LXOR: *out = KOp::Lxor; return true;
    case MPI_BAND: *out = KOp::Band; return true;
    case MPI_BOR: *out = KOp::Bor; return true;
    case MPI_BXOR: *out = KOp::Bxor; return true;
    default: return false;
  }
}

}  // namespace

const char* reduce_kernel_name(KOp op, KType type) {
  int o = static_cast<int>(op), t = static_cast<int>(type);
  if (o < 0 || o >= kNumKOps || t < 0 || t >= kNumKTypes) return nullptr;
  if (op >= KOp::Band && is_float(type)) return nullptr;
  return kNames[o][t];
}

bool reduce_kernel_for(MPI_Op op, MPI_Datatype basic, KOp* kop, KType* ktype) {
  KOp o;
  KType t;
  if (!kop_of(op, &o) || !ktype_of(basic, &t)) return false;
  const TypeInfo* ti = type_info(basic);
  if (!ti || !ti->predefined) return false;
  if (op_check(op, basic, nullptr) != Status::Ok) return false;
  if (!reduce_kernel_name(o, t)) return false;
  *kop = o;
  *ktype = t;
  return true;
}

std::vector<Segment> segment_table(const TypeInfo& t) {
  std::vector<Segment> out;
  out.reserve(t.segs.size());
  unsigned long long packed = 0;
  for (const chorus::Segment& s : t.segs) {
    out.push_back({static_cast<unsigned long long>(static_cast<long long>(s.off)),
                   static_cast<unsigned long long>(s.len), packed});
    packed += s.len;
  }
  return out;
}

LaunchShape launch_shape(unsigned long long work, unsigned long long per_thread) {
  LaunchShape s;
  if (per_thread == 0) per_thread = 1;
  const unsigned long long per_block = per_thread * s.threads;
  const unsigned long long blocks = (work + per_block - 1) / per_block;
  s.blocks = static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
  return s;
}

}  // namespace chorus::gpu::detail
