#!/usr/bin/env python3
"""The launch tree's model: how long mpirun takes to have a daemon up on every node.

The groups are those of launch_groups() (lib/launcher/server/launcher.cc): a
launcher starts up to FANOUT daemons itself; beyond that it starts FANOUT group
leaders and each leader starts the rest of its group the same way. A launcher
starts its children one after another (SPAWN ms each: fork, exec of the agent)
and a child is up HOP ms after its start (the agent's connection, chorusd's start,
the token handshake: ~30 ms measured on this machine, `CHORUS_DEBUG=INFO
CHORUS_DEBUG_SUBSYS=LAUNCH` prints it as "connected ... in N ms"). Prints, per
node count, the tree's depth and the modelled time with the tree and with every
daemon started by mpirun itself (a flat launch).

  benchmarks/launch_tree.py [--hop 30] [--spawn 1.5] [--fanout 32] [--plot FILE.png]

--plot draws both against the node count (log axes, each point of the tree
labelled with its depth) with matplotlib (Debian: python3-matplotlib); docs/
launch_tree.png is `/usr/bin/python3 benchmarks/launch_tree.py --plot
docs/launch_tree.png`.
"""
import argparse
import sys

NODES = [1 << k for k in range(15)]  # 1 to 16,384


def groups(nodes, fanout):
    if len(nodes) <= fanout:
        return [[n] for n in nodes]
    base, extra = divmod(len(nodes), fanout)
    out, at = [], 0
    for g in range(fanout):
        size = base + (1 if g < extra else 0)
        out.append(nodes[at:at + size])
        at += size
    return out


def up_time(nodes, fanout, hop, spawn, start=0.0):
    end = start
    for i, g in enumerate(groups(nodes, fanout)):
        up = start + (i + 1) * spawn + hop
        end = max(end, up, up_time(g[1:], fanout, hop, spawn, up) if len(g) > 1 else up)
    return end


def depth(nodes, fanout):
    return 0 if not nodes else 1 + max(depth(g[1:], fanout) for g in groups(nodes, fanout))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hop", type=float, default=30.0, help="ms from a daemon's start to its handshake done")
    ap.add_argument("--spawn", type=float, default=1.5, help="ms a launcher spends starting one agent")
    ap.add_argument("--fanout", type=int, default=32, help="CHORUS_LAUNCH_FANOUT")
    ap.add_argument("--plot", metavar="FILE", help="also draw the table into FILE (PNG, matplotlib)")
    a = ap.parse_args()
    print(f"# hop {a.hop} ms, spawn {a.spawn} ms, fanout {a.fanout}")
    print(f"{'nodes':>7} {'depth':>6} {'tree ms':>9} {'flat ms':>9}")
    rows = []
    for n in NODES:
        remote = list(range(1, n))
        rows.append((n, depth(remote, a.fanout), up_time(remote, a.fanout, a.hop, a.spawn),
                     up_time(remote, 1 << 30, a.hop, a.spawn)))
        print(f"{n:>7} {rows[-1][1]:>6} {rows[-1][2]:>9.1f} {rows[-1][3]:>9.1f}")
    if a.plot:
        plot(rows, a, a.plot)


def plot(rows, a, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(f"--plot needs matplotlib, which {sys.executable} lacks (Debian: python3-matplotlib, "
                 "then /usr/bin/python3 benchmarks/launch_tree.py --plot ...)")
    rows = [r for r in rows if r[0] > 1]  # one node starts no daemon
    nodes = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.plot(nodes, [r[3] for r in rows], "o--", color="tab:gray", label="every daemon started by mpirun")
    ax.plot(nodes, [r[2] for r in rows], "o-", color="tab:blue", label=f"launch tree (fanout {a.fanout})")
    for n, d, tree, _ in rows:
        ax.annotate(f"d={d}", (n, tree), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7,
                    color="tab:blue")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("ms until a daemon is up on every node")
    ax.set_title(f"Launch time model: {a.hop:g} ms per hop, {a.spawn:g} ms per agent started", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    print(f"# plot: {path}")


if __name__ == "__main__":
    main()
