#!/usr/bin/env python3
"""Runs the benchmarks in benchmarks/ through our mpirun and checks what they report.

    run_bench.py MPIRUN BENCHDIR perf COLL NP    *_perf at NP ranks: -c 1 over every type
                                                 and op (text: each #wrong is 0), --json
                                                 (parses; wrong 0), --osu --csv
    run_bench.py MPIRUN BENCHDIR cuda [MOCK]     -m cuda / -d cuda under the CUDA test double MOCK
                                                 (libchorus_mockcuda.so; -c 1: no wrong element),
                                                 and with no driver: exit 2, "no CUDA device"
    run_bench.py MPIRUN BENCHDIR algo            -a with an unknown algorithm: a clear error
    run_bench.py MPIRUN BENCHDIR p2p             latency, bw, bibw, mbw_mr --json parse
    run_bench.py MPIRUN BENCHDIR rma NP          rma: every test, window flavour and
                                                 synchronization at NP ranks with -c (no wrong
                                                 byte), --json parses, bad options fail clearly
Timings are never asserted.
"""
import json
import os
import subprocess
import sys


def fail(msg, proc=None):
    print("FAIL:", msg)
    if proc is not None:
        print("--- stdout ---\n" + proc.stdout[-4000:])
        print("--- stderr ---\n" + proc.stderr[-4000:])
    sys.exit(1)


def run(mpirun, np, prog, args, timeout=60, env=None, wrap=()):
    cmd = list(wrap) + [mpirun, "-n", str(np), "--timeout", str(timeout - 10), prog] + args
    print("+", " ".join(f"{k}={v}" for k, v in (env or {}).items()), " ".join(cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **env) if env else None)


def program(benchdir, name):
    path = os.path.join(benchdir, name)
    if not os.access(path, os.X_OK):
        print(f"FAIL: {path} is not built (meson test builds it; with --no-rebuild, run ninja first)")
        sys.exit(1)
    return path


def load_json(proc, what):
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        fail(f"{what}: --json output does not parse: {e}", proc)


def perf(mpirun, benchdir, coll, np):
    prog = program(benchdir, coll + "_perf")
    root = str(np - 1)  # the last rank: not the default

    # 1. Every type and op, small sizes, both placements, every element checked.
    p = run(mpirun, np, prog, ["-b", "1", "-e", "64K", "-f", "8", "-n", "2", "-w", "1", "-c", "1",
                               "-d", "all", "-o", "all", "-r", root])
    if p.returncode != 0:
        fail(f"{coll}_perf -c 1 exited {p.returncode}", p)
    rows = [l.split() for l in p.stdout.splitlines() if l.strip() and not l.startswith("#")]
    if not rows:
        fail("no result rows", p)
    for r in rows:
        if len(r) != 13:
            fail(f"row with {len(r)} columns, not 13: {' '.join(r)}", p)
        if r[8] != "0" or r[12] != "0":
            fail(f"wrong elements: {' '.join(r)}", p)
    if "# Wrong elements       : 0 OK" not in p.stdout:
        fail("no '# Wrong elements : 0 OK' line", p)
    if "# Avg bus bandwidth" not in p.stdout:
        fail("no '# Avg bus bandwidth' line", p)
    print(f"ok: {len(rows)} rows, #wrong 0")

    # 2. --json parses and says the same.
    p = run(mpirun, np, prog, ["-b", "8", "-e", "1M", "-f", "16", "-n", "3", "-w", "1", "-c", "1", "-r", root,
                               "--json"])
    if p.returncode != 0:
        fail(f"{coll}_perf --json exited {p.returncode}", p)
    d = load_json(p, "--json")
    if d.get("nranks") != np or d.get("collective") != coll or not d.get("results"):
        fail(f"unexpected JSON header: { {k: v for k, v in d.items() if k != 'results'} }", p)
    if d.get("wrong") != 0:
        fail(f"JSON reports {d.get('wrong')} wrong elements", p)
    for r in d["results"]:
        for k in ("out_of_place", "in_place"):
            if r[k]["wrong"] != 0 or r[k]["time_us"] <= 0:
                fail(f"JSON row {r}", p)
    print(f"ok: --json, {len(d['results'])} rows")

    # 3. The OSU table, as CSV.
    p = run(mpirun, np, prog, ["--osu", "--csv", "-e", "4K", "-n", "20", "-w", "2", "-c", "1"])
    if p.returncode != 0:
        fail(f"{coll}_perf --osu exited {p.returncode}", p)
    lines = p.stdout.splitlines()
    if not lines or lines[0] != "size,avg_us,min_us,max_us,iterations,type,redop,wrong" or len(lines) < 2:
        fail("--osu --csv: unexpected output", p)
    for l in lines[1:]:
        f = l.split(",")
        if f[7] != "0":
            fail(f"--osu row with wrong elements: {l}", p)
    print(f"ok: --osu --csv, {len(lines) - 1} rows")


def cuda(mpirun, benchdir, mock):
    # No driver: every program that was asked for device buffers exits 2 and says why.
    nodrv = {"CHORUS_CUDA_LIBRARY": "/nonexistent/libcuda.so.1"}
    for name, np, args in (("allreduce_perf", 2, ["-m", "cuda"]), ("alltoall_perf", 1, ["-m", "cuda"]),
                           ("latency", 2, ["-m", "cuda"]), ("bw", 2, ["-d", "cuda", "H", "D"])):
        p = run(mpirun, np, program(benchdir, name), args, env=nodrv)
        if p.returncode != 2:
            fail(f"{name} {' '.join(args)} without a driver: exit {p.returncode}, not 2", p)
        if "no CUDA device" not in p.stderr or "/nonexistent/libcuda.so.1" not in p.stderr:
            fail(f"{name} {' '.join(args)} without a driver: no clear 'no CUDA device: ...' message", p)
        if p.stderr.count("no CUDA device") != 1:
            fail(f"{name}: the message should be printed once", p)
    p = run(mpirun, 1, program(benchdir, "allreduce_perf"), ["-m", "gpu"])
    if p.returncode != 1 or "bad value 'gpu' for -m" not in p.stderr:
        fail("-m gpu: not refused as a bad value", p)
    p = run(mpirun, 2, program(benchdir, "latency"), ["-d", "gpu"])
    if p.returncode != 1 or "bad value 'gpu' for -d" not in p.stderr:
        fail("latency -d gpu: not refused as a bad value", p)
    print("ok: no driver: exit 2 and 'no CUDA device: ...'")

    if not mock or not os.path.exists(mock):
        print(f"SKIP: the CUDA test double {mock} is not built: device-buffer runs not checked")
        sys.exit(77)
    env = {"CHORUS_CUDA_LIBRARY": os.path.abspath(mock)}

    # Collectives on device buffers: every element checked after copying back.
    for coll, np in (("allreduce", 2), ("allreduce", 3), ("reduce_scatter", 2), ("bcast", 3), ("alltoall", 2)):
        p = run(mpirun, np, program(benchdir, coll + "_perf"),
                ["-m", "cuda", "-b", "8", "-e", "256K", "-f", "8", "-n", "2", "-w", "1", "-c", "1"], env=env)
        if p.returncode != 0:
            fail(f"{coll}_perf -m cuda -c 1 at {np} ranks exited {p.returncode}", p)
        if "memory: cuda" not in p.stdout or "# Wrong elements       : 0 OK" not in p.stdout:
            fail(f"{coll}_perf -m cuda: no 'memory: cuda' header or no '0 OK'", p)
    p = run(mpirun, 2, program(benchdir, "allreduce_perf"),
            ["-m", "cuda", "-b", "4", "-e", "4K", "-f", "32", "-n", "2", "-w", "1", "-c", "1", "-d", "all", "-o", "all",
             "--json"], env=env)
    if p.returncode != 0:
        fail(f"allreduce_perf -m cuda -d all -o all exited {p.returncode}", p)
    d = load_json(p, "-m cuda --json")
    if d.get("memory") != "cuda" or d.get("wrong") != 0 or not d.get("results"):
        fail(f"-m cuda --json: memory {d.get('memory')}, wrong {d.get('wrong')}", p)
    print("ok: *_perf -m cuda -c 1: no wrong element")

    # Point-to-point: both buffers on the device, and OSU's mixed placements.
    for name, np, args in (("latency", 2, ["-m", "cuda"]), ("bw", 2, ["-d", "cuda", "D", "H"]),
                           ("bibw", 2, ["-d", "cuda", "H", "D"]), ("mbw_mr", 4, ["-d", "cuda"])):
        p = run(mpirun, np, program(benchdir, name),
                args + ["-m", "1:65536", "-i", "5", "-x", "1", "-c", "1", "--json"], env=env)
        if p.returncode != 0:
            fail(f"{name} {' '.join(args)} -c 1 exited {p.returncode}", p)
        d = load_json(p, name)
        want = "D D" if len(args) == 2 else f"{args[2]} {args[3]}"
        if d.get("memory") != "cuda" or d.get("buffers") != want or d.get("wrong") != 0 or len(d["results"]) != 17:
            fail(f"{name}: memory {d.get('memory')}, buffers {d.get('buffers')} (want {want}), "
                 f"wrong {d.get('wrong')}", p)
    p = run(mpirun, 2, program(benchdir, "latency"), ["-d", "cuda", "-m", "1:4096", "-i", "5", "-x", "1", "-c"],
            env=env)
    if p.returncode != 0 or "# Validation: 0 wrong bytes OK" not in p.stdout or "on DEVICE (D)" not in p.stdout:
        fail("latency -d cuda -c: text output", p)
    print("ok: latency, bw, bibw, mbw_mr with device buffers: no wrong byte")

    # gpu_bw: runs on the double, every column present.
    gpu_bw = program(benchdir, "gpu_bw")
    print("+", gpu_bw, flush=True)
    p = subprocess.run([gpu_bw, "-S", "4K,1M", "-t", "0.01", "--json"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **env))
    if p.returncode != 0:
        fail(f"gpu_bw exited {p.returncode}", p)
    d = load_json(p, "gpu_bw --json")
    if len(d.get("results", [])) != 2 or any(r[k] <= 0 for r in d["results"] for k in ("d2d_GBps", "h2d_GBps",
                                                                                            "d2h_GBps")):
        fail("gpu_bw: unexpected JSON", p)
    p = subprocess.run([gpu_bw, "-S", "4K"], capture_output=True, text=True, timeout=60, env=dict(os.environ, **nodrv))
    if p.returncode != 2 or "no CUDA device" not in p.stderr:
        fail("gpu_bw without a driver: expected exit 2 and 'no CUDA device'", p)
    print("ok: gpu_bw")


def algo(mpirun, benchdir):
    # Chorus reads CHORUS_<COLL>_ALGO at MPI_Init; -a sets it and CHORUS_ALGO_FALLBACK=error
    # (unless set), so an unknown name fails with Chorus's message, on every rank count.
    env_fallback = os.environ.pop("CHORUS_ALGO_FALLBACK", None)
    try:
        for coll, var in (("allreduce", "CHORUS_ALLREDUCE_ALGO"), ("bcast", "CHORUS_BCAST_ALGO"),
                          ("reduce_scatter", "CHORUS_REDUCE_SCATTER_BLOCK_ALGO")):
            for np in (1, 3):
                p = run(mpirun, np, program(benchdir, coll + "_perf"), ["-a", "no_such_algo", "-b", "64", "-e", "64"])
                if p.returncode == 0:
                    fail(f"{coll}_perf -a no_such_algo exited 0", p)
                want = f"{var}=no_such_algo: no such"
                if want not in p.stderr or "known:" not in p.stderr:
                    fail(f"{coll}_perf -a no_such_algo: stderr lacks '{want} ... (known: ...)'", p)
                if p.stderr.count(want) != 1:
                    fail("the error should be reported once (by rank 0)", p)
        # A known algorithm runs, and is named in the header.
        p = run(mpirun, 2, program(benchdir, "allreduce_perf"), ["-a", "ring", "-b", "64", "-e", "4K", "-c", "1", "--json"])
        if p.returncode != 0 or load_json(p, "-a ring --json").get("algo") != "ring":
            fail("allreduce_perf -a ring", p)
        # The shared-window algorithms too, from the first call: the programs run on a
        # duplicate of MPI_COMM_WORLD, whose window comes with its
        # CHORUS_COLL_SHM_CALLS-th collective unless -a sets it to 1 (they failed).
        for name, np in (("shared_memory_flat", 2), ("shared_memory", 3)):
            p = run(mpirun, np, program(benchdir, "allreduce_perf"),
                    ["-a", name, "-b", "64", "-e", "4K", "-w", "0", "-n", "2", "-c", "1", "--json"])
            if p.returncode != 0 or load_json(p, f"-a {name} --json").get("algo") != name:
                fail(f"allreduce_perf -a {name} at {np} ranks", p)
        # With CHORUS_ALGO_FALLBACK=warn set by the user, Chorus warns and chooses by cost.
        os.environ["CHORUS_ALGO_FALLBACK"] = "warn"
        p = run(mpirun, 2, program(benchdir, "allreduce_perf"), ["-a", "no_such_algo", "-b", "64", "-e", "64"])
        if p.returncode != 0 or "choosing by cost instead" not in p.stderr:
            fail("CHORUS_ALGO_FALLBACK=warn: expected a warning and a normal run", p)
    finally:
        os.environ.pop("CHORUS_ALGO_FALLBACK", None)
        if env_fallback is not None:
            os.environ["CHORUS_ALGO_FALLBACK"] = env_fallback
    print("ok: -a with an unknown algorithm is a clear error")


def p2p(mpirun, benchdir):
    for name, np, key in (("latency", 2, "latency_us"), ("bw", 2, "bandwidth_MBps"), ("bibw", 2, "bandwidth_MBps"),
                          ("mbw_mr", 4, "messages_per_s")):
        p = run(mpirun, np, program(benchdir, name), ["-m", "1:4096", "-i", "20", "-x", "2", "--json"])
        if p.returncode != 0:
            fail(f"{name} exited {p.returncode}", p)
        d = load_json(p, name)
        if d.get("benchmark") != name or len(d.get("results", [])) != 13 or key not in d["results"][0]:
            fail(f"{name}: unexpected JSON", p)
        p = run(mpirun, np, program(benchdir, name), ["-m", "1:4096", "-i", "20", "-x", "2", "--csv"])
        if p.returncode != 0 or not p.stdout.startswith("size,") or len(p.stdout.splitlines()) != 14:
            fail(f"{name} --csv", p)
    print("ok: latency, bw, bibw, mbw_mr --json and --csv")


def busy(mpirun, benchdir):
    """Ranks that wait yielding (3 ranks on one CPU: taskset, so CHORUS_PROGRESS=auto
    chooses yield) beside more busy processes than the node has CPUs (forked by
    rank 0, so on that CPU too): they must notice the other processes (P2P INFO
    line) and still compute right results (-c 1), through the shared window and
    over messages. Timings are not looked at."""
    loads = str((os.cpu_count() or 1) + 1)
    cpu = str(min(os.sched_getaffinity(0)))
    env = {"CHORUS_PROGRESS": "auto", "CHORUS_DEBUG": "INFO", "CHORUS_DEBUG_SUBSYS": "P2P,COLL"}
    p = run(mpirun, 3, program(benchdir, "allreduce_perf"),
            ["-S", "8,64K,1M", "-n", "20", "-w", "2", "-c", "1", "--background-load", loads], env=env,
            wrap=("taskset", "-c", cpu))
    if p.returncode != 0:
        fail(f"allreduce_perf beside {loads} busy processes exited {p.returncode}", p)
    if "another process wants a CPU" not in p.stderr:
        fail(f"no rank noticed {loads} busy processes (P2P INFO 'another process wants a CPU')", p)
    print(f"ok: 3 ranks beside {loads} busy processes noticed them; results right")


def rma(mpirun, benchdir, np):
    prog = program(benchdir, "rma")
    tests = ["put_latency", "get_latency", "acc_latency", "get_acc_latency", "fop_latency", "cas_latency",
             "put_bw", "get_bw"]
    runs = 0
    for t in tests:
        bw = t.endswith("_bw")
        for w in ("create", "allocate", "dynamic"):
            for s in ("lock", "flush", "flush_local", "lock_all", "fence", "pscw"):
                args = ["-t", t, "-w", w, "-s", s, "-m", "4:128K", "-i", "3", "-x", "1", "-c", "--json"]
                if bw:
                    args += ["-W", "4"]
                p = run(mpirun, np, prog, args)
                if p.returncode != 0:
                    fail(f"rma {' '.join(args)} exited {p.returncode}", p)
                d = load_json(p, "rma")
                want_rows = 1 if t in ("fop_latency", "cas_latency") else 16
                key = "bandwidth_MBps" if bw else "latency_us"
                if d.get("benchmark") != t or len(d.get("results", [])) != want_rows or key not in d["results"][0]:
                    fail(f"rma {' '.join(args)}: unexpected JSON", p)
                if d.get("wrong", 0) != 0:
                    fail(f"rma {' '.join(args)}: {d['wrong']} wrong bytes", p)
                runs += 1
    for s in ("fence", "pscw"):
        p = run(mpirun, np, prog, ["-t", "put_bibw", "-s", s, "-m", "4:64K", "-i", "3", "-x", "1", "-W", "4", "-c"])
        if p.returncode != 0 or "0 wrong bytes OK" not in p.stdout:
            fail(f"rma put_bibw -s {s}", p)
        runs += 1
    for bad, says in ((["-t", "nope"], "bad value 'nope' for -t"),
                      (["-t", "put_bibw", "-s", "lock"], "put_bibw takes -s fence or -s pscw")):
        p = run(mpirun, np, prog, bad)
        if p.returncode == 0 or says not in p.stderr:
            fail(f"rma {' '.join(bad)}: expected a failure saying \"{says}\"", p)
    print(f"ok: rma, {runs} runs checked")


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    mpirun, benchdir, mode = sys.argv[1:4]
    if mode == "perf":
        perf(mpirun, benchdir, sys.argv[4], int(sys.argv[5]))
    elif mode == "cuda":
        return cuda(mpirun, benchdir, sys.argv[4] if len(sys.argv) > 4 else None) or 0
    elif mode == "algo":
        algo(mpirun, benchdir)
    elif mode == "p2p":
        p2p(mpirun, benchdir)
    elif mode == "busy":
        busy(mpirun, benchdir)
    elif mode == "rma":
        rma(mpirun, benchdir, int(sys.argv[4]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
