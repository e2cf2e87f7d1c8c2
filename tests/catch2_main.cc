// Catch2's own main and runner, compiled once for every unit-test program (the
// single header's implementation is most of each program's compile time, most of
// all under the sanitizers).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
