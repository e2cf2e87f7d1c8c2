// Unit tests for pure logic: tag layout, params parsing, status mapping,
// datatype sizes, handle encoding, the request pool, shared-memory segments.
#include <catch2/catch.hpp>
#include <mpi.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <complex>
#include <csignal>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <set>

#include "core/datatype.h"
#include "core/handle.h"
#include "core/params.h"
#include "core/request.h"
#include "core/shm_segment.h"
#include "core/status.h"
#include "p2p/tag.h"

using namespace chorus;

TEST_CASE("tag layout packs and unpacks every field", "[tag]") {
  const int tags[] = {0, 1, 77, tag::kTagUB};
  const int srcs[] = {0, 1, 4095, tag::kMaxRanks - 1};
  const unsigned ctxs[] = {0u, 1u, 12345u, tag::kMaxContexts - 1u};
  for (int t : tags)
    for (int s : srcs)
      for (unsigned c : ctxs) {
        std::uint64_t packed = tag::make(t, s, c);
        REQUIRE(tag::tag_of(packed) == t);
        REQUIRE(tag::source_of(packed) == s);
        REQUIRE(tag::context_of(packed) == c);
      }
}

TEST_CASE("tag masks implement the wildcards", "[tag]") {
  std::uint64_t msg = tag::make(42, 3, 8);
  auto matches = [&](std::uint64_t want, std::uint64_t mask) { return (msg & mask) == (want & mask); };
  CHECK(matches(tag::make(42, 3, 8), tag::mask(false, false)));
  CHECK_FALSE(matches(tag::make(42, 2, 8), tag::mask(false, false)));
  CHECK(matches(tag::make(42, 0, 8), tag::mask(true, false)));
  CHECK(matches(tag::make(0, 3, 8), tag::mask(false, true)));
  CHECK(matches(tag::make(0, 0, 8), tag::mask(true, true)));
  // Collective traffic (odd context) never matches a user receive (even context).
  CHECK_FALSE(matches(tag::make(0, 0, 9), tag::mask(true, true)));
  CHECK(tag::kTagUB >= 32767);
}

TEST_CASE("params parse every type and reject bad input", "[params]") {
  using namespace chorus::params;
  std::string err;
  Value v;
  Info b{"B", Type::Bool, "X", "0", "", ""};
  REQUIRE(parse(b, "yes", v, err));
  CHECK(v.i == 1);
  REQUIRE(parse(b, "OFF", v, err));
  CHECK(v.i == 0);
  CHECK_FALSE(parse(b, "maybe", v, err));
  CHECK(err.find("boolean") != std::string::npos);

  Info n{"N", Type::Int, "X", "0", "", ""};
  REQUIRE(parse(n, " 42 ", v, err));
  CHECK(v.i == 42);
  REQUIRE(parse(n, "0x10", v, err));
  CHECK(v.i == 16);
  CHECK_FALSE(parse(n, "12abc", v, err));
  CHECK_FALSE(parse(n, "", v, err));

  Info by{"Y", Type::Bytes, "X", "0", "", ""};
  REQUIRE(parse(by, "64K", v, err));
  CHECK(v.i == 65536);
  REQUIRE(parse(by, "1M", v, err));
  CHECK(v.i == 1 << 20);
  REQUIRE(parse(by, "2GB", v, err));
  CHECK(v.i == 2LL << 30);
  REQUIRE(parse(by, "123", v, err));
  CHECK(v.i == 123);
  CHECK_FALSE(parse(by, "-1", v, err));
  CHECK_FALSE(parse(by, "1T", v, err));

  Info d{"D", Type::Double, "X", "0", "", ""};
  REQUIRE(parse(d, "2.5", v, err));
  CHECK(v.d == Approx(2.5));
  CHECK_FALSE(parse(d, "nan", v, err));

  Info e{"E", Type::Enum, "X", "b", "a|b|c", ""};
  REQUIRE(parse(e, "C", v, err));
  CHECK(v.i == 2);
  CHECK_FALSE(parse(e, "d", v, err));
  CHECK(err.find("a|b|c") != std::string::npos);

  Info m{"M", Type::Mask, "X", "ALL", "INIT|BOOT|P2P", ""};
  REQUIRE(parse(m, "ALL", v, err));
  CHECK(v.i == 7);
  REQUIRE(parse(m, "boot,p2p", v, err));
  CHECK(v.i == 6);
  REQUIRE(parse(m, "^BOOT", v, err));
  CHECK(v.i == 5);
  CHECK_FALSE(parse(m, "INIT,NOPE", v, err));
}

TEST_CASE("every params row has a valid default and a CHORUS_ name", "[params]") {
  using namespace chorus::params;
  std::set<std::string_view> names;
  for (int i = 0; i < count(); ++i) {
    const Info& row = info(static_cast<Id>(i));
    INFO(row.env);
    Value v;
    std::string err;
    CHECK(parse(row, row.def, v, err));
    CHECK(row.env.substr(0, 7) == "CHORUS_");
    CHECK_FALSE(row.doc.empty());
    CHECK(names.insert(row.env).second);
  }
}

TEST_CASE("environment values override defaults, bad ones fall back", "[params]") {
  setenv("CHORUS_SPIN_COUNT", "77", 1);
  setenv("CHORUS_KILL_GRACE", "not-a-number", 1);
  params::reload();
  CHECK(param::SpinCount() == 77);
  CHECK(params::value(params::Id::SpinCount).from_env);
  CHECK(param::KillGrace() == Approx(2.0));
  CHECK_FALSE(params::value(params::Id::KillGrace).from_env);
  unsetenv("CHORUS_SPIN_COUNT");
  unsetenv("CHORUS_KILL_GRACE");
  params::reload();
  CHECK(param::SpinCount() == 1000);
}

TEST_CASE("status codes map to MPI error classes", "[status]") {
  CHECK(to_mpi_class(Status::Ok) == MPI_SUCCESS);
  CHECK(to_mpi_class(Status::InvalidRank) == MPI_ERR_RANK);
  CHECK(to_mpi_class(Status::InvalidTag) == MPI_ERR_TAG);
  CHECK(to_mpi_class(Status::Truncate) == MPI_ERR_TRUNCATE);
  CHECK(to_mpi_class(Status::InvalidComm) == MPI_ERR_COMM);
  CHECK(to_mpi_class(Status::Transport) == MPI_ERR_OTHER);
  CHECK(to_string(Status::Truncate) == "message truncated");
}

TEST_CASE("handle encoding follows the MPICH ABI", "[handle]") {
  CHECK(handle::kind(MPI_COMM_WORLD) == handle::Builtin);
  CHECK(handle::object(MPI_COMM_WORLD) == handle::Comm);
  CHECK(handle::object(MPI_INT) == handle::Datatype);
  CHECK(handle::kind(MPI_REQUEST_NULL) == handle::Invalid);
  CHECK(handle::object(MPI_REQUEST_NULL) == handle::Request);
  CHECK(handle::object(MPI_ERRORS_RETURN) == handle::Errhandler);
  CHECK(handle::object(MPI_SUM) == handle::Op);
  int h = handle::make(handle::Direct, handle::Request, 12345);
  CHECK(handle::index(h) == 12345);
  CHECK(handle::is(h, handle::Direct, handle::Request));
}

TEST_CASE("predefined datatypes have the sizes of their C types", "[datatype]") {
  struct Want { MPI_Datatype t; std::size_t size; };
  const Want wants[] = {
      {MPI_CHAR, sizeof(char)},       {MPI_SHORT, sizeof(short)},
      {MPI_INT, sizeof(int)},         {MPI_LONG, sizeof(long)},
      {MPI_LONG_LONG, sizeof(long long)}, {MPI_FLOAT, sizeof(float)},
      {MPI_DOUBLE, sizeof(double)},   {MPI_LONG_DOUBLE, sizeof(long double)},
      {MPI_INT8_T, 1}, {MPI_INT16_T, 2}, {MPI_INT32_T, 4}, {MPI_INT64_T, 8},
      {MPI_UINT8_T, 1}, {MPI_UINT16_T, 2}, {MPI_UINT32_T, 4}, {MPI_UINT64_T, 8},
      {MPI_C_BOOL, sizeof(bool)}, {MPI_BYTE, 1}, {MPI_AINT, sizeof(MPI_Aint)},
      {MPI_C_DOUBLE_COMPLEX, sizeof(std::complex<double>)},
      {MPI_2INT, 2 * sizeof(int)}, {MPI_DOUBLE_INT, sizeof(double) + sizeof(int)},
      {MPI_FLOAT_INT, sizeof(float) + sizeof(int)}, {MPI_SHORT_INT, sizeof(short) + sizeof(int)},
  };
  for (const auto& w : wants) {
    const TypeInfo* ti = type_info(w.t);
    REQUIRE(ti != nullptr);
    INFO(ti->name);
    CHECK(ti->size == w.size);
  }
  // Builtin handles carry their size in bits 15-8 (the pair types excepted).
  for (int i = 0; i < builtin_type_count(); ++i) {
    MPI_Datatype t = builtin_type_at(i);
    const TypeInfo* ti = type_info(t);
    REQUIRE(ti);
    INFO(ti->name);
    if (handle::kind(t) == handle::Builtin && ti->elements == 1)
      CHECK(static_cast<std::size_t>((t >> 8) & 0xff) == ti->size);
  }
  CHECK(type_info(MPI_DATATYPE_NULL) == nullptr);
  CHECK(type_info(static_cast<MPI_Datatype>(0x4c000905)) == nullptr);  // MPI_INT with a wrong size
  CHECK(type_info(static_cast<MPI_Datatype>(MPI_COMM_WORLD)) == nullptr);
}

TEST_CASE("counts and elements from received bytes", "[datatype]") {
  const TypeInfo& i32 = *type_info(MPI_INT);
  CHECK(count_from_bytes(i32, 12) == 3);
  CHECK(count_from_bytes(i32, 6) == MPI_UNDEFINED);
  CHECK(elements_from_bytes(i32, 6) == MPI_UNDEFINED);
  const TypeInfo& di = *type_info(MPI_DOUBLE_INT);
  // Packed wire format: a DOUBLE_INT element is 12 bytes (no padding).
  CHECK(count_from_bytes(di, 2 * di.size) == 2);
  CHECK(elements_from_bytes(di, 2 * di.size) == 4);
  CHECK(elements_from_bytes(di, di.size + sizeof(double)) == 3);
}

TEST_CASE("request pool reuses slots and resolves handles", "[request]") {
  RequestPool pool;
  Request* a = pool.get();
  Request* b = pool.get();
  REQUIRE(a != b);
  MPI_Request ha = pool.handle(a);
  CHECK(pool.lookup(ha) == a);
  CHECK(pool.lookup(MPI_REQUEST_NULL) == nullptr);
  pool.put(a);
  CHECK(pool.lookup(ha) == nullptr);  // a freed handle no longer resolves
  Request* c = pool.get();
  CHECK(c == a);                      // LIFO reuse keeps the hot slot in cache
  std::vector<Request*> many;
  for (int i = 0; i < 5000; ++i) many.push_back(pool.get());
  CHECK(pool.live() == 5002);
  for (Request* r : many) CHECK(pool.lookup(pool.handle(r)) == r);
  for (Request* r : many) pool.put(r);
  pool.put(b);
  pool.put(c);
  CHECK(pool.live() == 0);
}

namespace {

// In a child with its own mount namespace and a 1 MiB /dev/shm: create a 768 KiB
// segment, reserve its pages (shm::reserve) before or after "another process"
// fills /dev/shm with a 512 KiB file (it writes what fits), or not at all, then
// write every byte of the segment unless the reservation failed. Returns the
// child's wait status; exit status 77 where a mount namespace cannot be had (not
// root), 78 where the kernel cannot reserve (EINVAL), 10 + the errno where the
// reservation failed.
enum class Reserve { never, before_fill, after_fill };
int fill_and_touch(Reserve when) {
  const pid_t pid = fork();
  if (pid == 0) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // the SIGBUS below dumps no core
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=1m") != 0)
      _exit(77);
    std::string err;
    const std::size_t bytes = 768 << 10;
    std::byte* seg = chorus::shm::map("/chorus-test-fill", bytes, true, &err);
    if (!seg) _exit(3);
    auto reserve = [&] {
      const int e = chorus::shm::reserve(seg, bytes);
      if (e == EINVAL) _exit(78);
      if (e != 0) _exit(10 + e);
    };
    if (when == Reserve::before_fill) reserve();
    int fd = open("/dev/shm/other-job", O_WRONLY | O_CREAT, 0600);
    static char chunk[4096];
    std::memset(chunk, 1, sizeof chunk);
    for (int i = 0; i < 128 && write(fd, chunk, sizeof chunk) == static_cast<ssize_t>(sizeof chunk); ++i) {
    }
    close(fd);
    if (when == Reserve::after_fill) reserve();
    std::signal(SIGBUS, SIG_DFL);  // not a sanitizer's report: the signal itself
    std::memset(seg, 2, bytes);    // a SIGBUS at the first page /dev/shm has no room for
    _exit(0);
  }
  REQUIRE(pid > 0);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return st;
}

}  // namespace

TEST_CASE("a reserved shared segment stays usable when /dev/shm fills up, and a full one says so", "[shm]") {
  // Unreserved first, to show the scenario bites: its pages are allocated as
  // touched, and the other file took them.
  const int never = fill_and_touch(Reserve::never);
  if (WIFEXITED(never) && WEXITSTATUS(never) == 77) {
    WARN("SKIP: no mount namespace here (needs CAP_SYS_ADMIN): cannot give a child a small /dev/shm");
    return;
  }
  CHECK((WIFSIGNALED(never) && WTERMSIG(never) == SIGBUS));
  const int before = fill_and_touch(Reserve::before_fill);
  if (WIFEXITED(before) && WEXITSTATUS(before) == 78) {
    WARN("SKIP: this kernel cannot reserve pages (no MADV_POPULATE_WRITE, Linux < 5.14)");
    return;
  }
  INFO("reserved first: wait status " << before << (WIFSIGNALED(before) ? " (killed by a signal)" : ""));
  REQUIRE(WIFEXITED(before));
  CHECK(WEXITSTATUS(before) == 0);
  // Reserved once /dev/shm is full: an error (EFAULT), not a SIGBUS.
  const int after = fill_and_touch(Reserve::after_fill);
  INFO("reserved after the fill: wait status " << after << (WIFSIGNALED(after) ? " (killed by a signal)" : ""));
  REQUIRE(WIFEXITED(after));
  CHECK(WEXITSTATUS(after) > 10);
}
