// RAII over UCP handles: context, worker, endpoints. Move-only owners whose
// destructors never throw (failures log a WARN). One worker per process.
#pragma once
#include <ucp/api/ucp.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace chorus::ucx {

Status to_status(ucs_status_t s);

// A UCX setting Chorus chooses (name without the "UCX_" prefix, as
// ucp_config_modify takes it). Applied only when the user set none of
// UCX_<name> and UCX_<alias>...: the user's environment always wins.
struct Setting {
  std::string name;
  std::string value;
  std::vector<std::string> aliases;  // other variables that set the same thing
};
// True when the environment sets UCX_<name>.
bool env_has(std::string_view name);
bool env_has(const Setting& s);

class Context {
 public:
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  Context(Context&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  ~Context() { reset(); }

  // Tag matching (and remote memory access with `rma`), thread mode chosen by the
  // caller. `estimated_eps` sizes tables. `settings` the user left unset go to
  // ucp_config_modify before ucp_init.
  Status init(bool multi_thread, std::size_t estimated_eps,
              const std::vector<Setting>& settings = {}, bool rma = false);
  void reset();
  ucp_context_h get() const { return h_; }
  // Memory types UCX can move natively (bit set of ucs_memory_type_t).
  std::uint64_t memory_types() const;

 private:
  ucp_context_h h_ = nullptr;
};

class Worker {
 public:
  Worker() = default;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { reset(); }

  Status init(const Context& ctx, bool multi_thread);
  void reset();
  ucp_worker_h get() const { return h_; }
  const std::vector<std::byte>& address() const { return address_; }
  // The address with network transports only (no shared memory): much shorter,
  // for names that must stay small (MPI port names); empty when UCX has none.
  std::vector<std::byte> net_address() const;
  unsigned progress() { return ucp_worker_progress(h_); }

 private:
  ucp_worker_h h_ = nullptr;
  std::vector<std::byte> address_;
};

// Endpoints are owned by the p2p layer's table; these helpers create and close.
// With `why`, a failure is the caller's to report: UCX's own error lines are not
// printed but kept there (logged at INFO), and no WARN is logged.
Status ep_create(const Worker& w, const void* address, ucp_ep_h* out, std::string* why = nullptr);
// Close every endpoint (flushing, or at once with `force`), then null them out.
void ep_close_all(Worker& w, std::vector<ucp_ep_h>& eps, bool force = false);
// Wait for a UCX request pointer (ucs_status_ptr_t) by progressing the worker.
ucs_status_t wait_ptr(Worker& w, ucs_status_ptr_t p);

// Transport names an endpoint uses, e.g. "posix/memory, sysv/memory, tcp/lo".
std::string ep_transports(ucp_ep_h ep);
// The transports of the lanes the endpoint uses for remote memory access (RMA).
std::vector<std::string> ep_rma_transports(ucp_ep_h ep);
// The smallest tagged send (ucp_tag_send_nbx) the endpoint carries by rendezvous,
// in bytes; 0 when its text names none (no such range, or a UCX that prints its
// protocols otherwise).
std::size_t ep_rndv_threshold(ucp_ep_h ep);
// ucp_ep_print_info's whole text: lanes and the protocol of each size range.
std::string ep_info(ucp_ep_h ep);
// What the three above read from that text (pure, for tests): the transport of
// each lane line, only those with a remote-memory use when `rma_only` (sorted,
// each once), and the rendezvous threshold of the first "tag_send:" line (0 when
// it has none, or one of more than 18 digits).
std::vector<std::string> lane_transports(std::string_view info, bool rma_only);
std::size_t rndv_threshold(std::string_view info);
std::string version();
// Transport resources the context found, e.g. {"self/memory0", "tcp/lo", "posix/memory"}.
std::vector<std::string> resources(const Context& ctx);

}  // namespace chorus::ucx
