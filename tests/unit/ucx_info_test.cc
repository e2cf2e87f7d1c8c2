// What Chorus reads from ucp_ep_print_info's text (ucx/ucx.h): the transport of
// each lane, those with a remote-memory use, and the tagged send's rendezvous
// threshold, on text as UCX 1.13 prints it.
#include <catch2/catch.hpp>

#include "ucx/ucx.h"

using chorus::ucx::lane_transports;
using chorus::ucx::rndv_threshold;

namespace {
// Between two of the test suite's pretend hosts (UCX 1.13.1, TCP over veth).
constexpr const char* kTcp =
    "#\n"
    "# UCP endpoint\n"
    "#\n"
    "#               peer: <no debug data>\n"
    "#                 lane[0]:  1:tcp/veth0.0 md[1]             -> md[1]/tcp/sysdev[255] rma_bw#0 am am_bw#0 wireup\n"
    "#\n"
    "#                tag_send: 0..<egr/short>..8185..<egr/zcopy>..19522..<rndv>..(inf)\n"
    "#            tag_send_nbr: 0..<egr/short>..8185..<egr/bcopy>..262144..<rndv>..(inf)\n"
    "#           tag_send_sync: 0..<egr/short>..8185..<egr/zcopy>..19522..<rndv>..(inf)\n"
    "#\n"
    "#                  rma_bw: mds [1] rndv_rkey_size 10\n";
// Two ranks of one host: shared memory for messages, CMA for RMA and rendezvous.
constexpr const char* kShm =
    "#                 lane[0]:  8:posix/memory.0 md[4]      -> md[4]/posix/sysdev[255] am am_bw#0\n"
    "#                 lane[1]:  3:cma/memory.0 md[2]        -> md[2]/cma/sysdev[255] rma_bw#0 rkey_ptr\n"
    "#                 lane[2]:  5:sysv/memory.0 md[3]       -> md[3]/sysv/sysdev[255] am_bw#1\n"
    "#                tag_send: 0..<egr/short>..92..<egr/bcopy>..8192..<egr/zcopy>..16384..<rndv>..(inf)\n";
}  // namespace

TEST_CASE("lane transports: every lane, or those with a remote-memory use", "[ucx]") {
  CHECK(lane_transports(kTcp, false) == std::vector<std::string>{"tcp/veth0"});
  CHECK(lane_transports(kTcp, true) == std::vector<std::string>{"tcp/veth0"});
  CHECK(lane_transports(kShm, false) == std::vector<std::string>{"cma/memory", "posix/memory", "sysv/memory"});
  CHECK(lane_transports(kShm, true) == std::vector<std::string>{"cma/memory"});
  CHECK(lane_transports("", false).empty());
  CHECK(lane_transports("#   lane[0]:\n", false).empty());
}

TEST_CASE("rendezvous threshold: the number before <rndv> on the tag_send line", "[ucx]") {
  CHECK(rndv_threshold(kTcp) == 19522);  // not tag_send_nbr's 262144
  CHECK(rndv_threshold(kShm) == 16384);
  CHECK(rndv_threshold("#   tag_send: 0..<egr/short>..8185..<egr/bcopy>..(inf)\n") == 0);  // no rendezvous
  CHECK(rndv_threshold("#   tag_send_nbr: 0..<egr/short>..262144..<rndv>..(inf)\n") == 0);  // not the line
  CHECK(rndv_threshold("") == 0);
  CHECK(rndv_threshold("#   tag_send: 0..<egr/short>..99999999999999999999..<rndv>..(inf)\n") == 0);  // no size_t
  CHECK(rndv_threshold("#   tag_send: 0..<rndv>..(inf)") == 0);  // all by rendezvous: 0 too, so not priced
}
