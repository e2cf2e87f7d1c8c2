// Chorus tunables: one table (params.def), parsed once from the environment.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chorus::params {

enum class Type { Bool, Int, Bytes, Double, String, Enum, Mask };

enum class Id : int {
#define CHORUS_PARAM(id, type, env, def, choices, doc) id,
#include "core/params.def"
#undef CHORUS_PARAM
  Count
};

struct Info {
  std::string_view id;
  Type type;
  std::string_view env;
  std::string_view def;
  std::string_view choices;  // "a|b|c" for Enum and Mask rows
  std::string_view doc;
};

// A parsed value. Enum holds the chosen index in `i`; Mask a bit per choice.
struct Value {
  std::string text;      // the text in effect (env or default)
  bool from_env = false;
  long long i = 0;       // Bool, Int, Bytes, Enum index, Mask bits
  double d = 0;          // Double
};

const Info& info(Id id);
std::string_view type_name(Type t);
constexpr int count() { return static_cast<int>(Id::Count); }

// Parse `text` as the row's type. Returns false with `err` set on bad input.
bool parse(const Info& row, std::string_view text, Value& out, std::string& err);

// A byte count as Bytes rows take it: 65536, 64K, 1M, 1G (a trailing B allowed).
bool parse_bytes(std::string_view text, long long& out, std::string& err);

// Current value (environment read once, on first use; bad values warn and fall
// back to the default).
const Value& value(Id id);

// On first use, every CHORUS_* variable in the environment that no row reads is
// named on stderr with the row's variable nearest to it (once per job: mpirun, or
// rank 0). set_launcher(): this process is mpirun, which warns whatever PMIX_RANK
// its environment holds.
void set_launcher();

// Re-read the environment (tests, and chorusrun after it edits its env).
void reload();

// Set an Enum or Mask row's number at run time (MPI_T_cvar_write; only rows whose
// readers look again, such as the log's). An Enum number past the last choice
// and Mask bits past the last name are kept as given: readers treat them as the
// last choice and ignore the extra bits.
void set_number(Id id, long long value);

}  // namespace chorus::params

// Typed accessors, one per row: chorus::param::Debug(), ...
namespace chorus::param {
namespace detail {
inline bool as_Bool(const params::Value& v) { return v.i != 0; }
inline long long as_Int(const params::Value& v) { return v.i; }
inline std::size_t as_Bytes(const params::Value& v) { return static_cast<std::size_t>(v.i); }
inline double as_Double(const params::Value& v) { return v.d; }
inline const std::string& as_String(const params::Value& v) { return v.text; }
inline int as_Enum(const params::Value& v) { return static_cast<int>(v.i); }
inline std::uint64_t as_Mask(const params::Value& v) { return static_cast<std::uint64_t>(v.i); }
}  // namespace detail
#define CHORUS_PARAM(id, type, env, def, choices, doc) \
  inline decltype(auto) id() { return detail::as_##type(params::value(params::Id::id)); }
#include "core/params.def"
#undef CHORUS_PARAM
}  // namespace chorus::param
