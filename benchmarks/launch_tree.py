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

  benchmarks/launch_tree.py [--hop 30] [--spawn 1.5] [--fanout 32]
"""
import argparse


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
    a = ap.parse_args()
    print(f"# hop {a.hop} ms, spawn {a.spawn} ms, fanout {a.fanout}")
    print(f"{'nodes':>7} {'depth':>6} {'tree ms':>9} {'flat ms':>9}")
    for n in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]:
        remote = list(range(1, n))
        print(f"{n:>7} {depth(remote, a.fanout):>6} {up_time(remote, a.fanout, a.hop, a.spawn):>9.1f} "
              f"{up_time(remote, 1 << 30, a.hop, a.spawn):>9.1f}")


if __name__ == "__main__":
    main()
