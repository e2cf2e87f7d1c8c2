#!/usr/bin/env python3
"""Generates the large-count ("_c") forms that only convert their counts.

Usage: large_count.py MPI_H LIST OUTPUT

LIST names the functions, one int form's name per line (# starts a comment).

For each MPI_<NAME>_c, the PMPI_ prototypes of it and of MPI_<NAME> (the int
form) in MPI_H describe what to do, parameter by parameter:
  - an MPI_Count scalar becomes a count and a datatype the int form takes
    (big(): the count as it is when it fits, else one element of a contiguous
    type), paired with the first MPI_Datatype after it; a reduction's op goes
    along, as a user's function cannot take the contiguous type;
  - an MPI_Count or MPI_Aint array whose int-form parameter is an int array is
    converted entry by entry (ints(): neighborhood forms count degrees; a rooted
    form's arrays count at its root only; reduce_scatter's counts, the local
    group's size, ints_local());
  - anything else passes through.
The output is a fragment that lib/mpi/large_count.cc includes after its helpers.
The functions that do more than convert their counts stay written there.
"""
import re
import sys


def prototypes(text):
    """name -> the parameter text of every `int PMPI_x(...);` in mpi.h."""
    return {m.group(1): ' '.join(m.group(2).split())
            for m in re.finditer(r'\bint\s+PMPI_(\w+)\s*\(([^;]*?)\)\s*;', text, re.S)}


def params_of(args):
    """(type, name, is_array, text) for each parameter."""
    params = []
    for p in args.split(','):
        p = p.strip()
        is_array = p.endswith('[]')
        if is_array:
            p = p[:-2].strip()
        pm = re.match(r'(.*?)(\w+)$', p)
        if not pm:
            raise ValueError(f'cannot read parameter "{p}"')
        ptype = ' '.join(pm.group(1).replace('*', ' * ').split()).replace(' *', '*')
        params.append((ptype, pm.group(2), is_array, p))
    return params


def decl(params):
    parts = []
    for ptype, name, is_array, raw in params:
        # As mpi.h spells it: pointer stars next to the name.
        t = ptype.replace('*', ' *').replace('  ', ' ')
        parts.append(f'{t}{"" if t.endswith("*") else " "}{name}{"[]" if is_array else ""}')
    return ', '.join(parts)


def generate(name, big_params, int_params):
    call = f'MPI_{name}_c'
    base = name
    neighbor = 'neighbor' in name.lower()
    rooted = any(n == 'root' for _, n, _, _ in big_params)
    reduction = any(t == 'MPI_Op' for t, _, _, _ in big_params) and not any(t == 'MPI_Win' for t, _, _, _ in big_params)
    lines = [f'int PMPI_{name}_c({decl(big_params)}) {{', f'  const char* call = "{call}";']
    paired = {}  # count -> the datatype that goes along with it
    for i, (ptype, pname, is_array, _) in enumerate(big_params):
        if ptype == 'MPI_Count' and not is_array:
            paired[pname] = next(n for t, n, a, _ in big_params[i + 1:] if t == 'MPI_Datatype' and not a)
    # The counts first, then the arrays (the order their errors are found in).
    for count, dtype in paired.items():
        lines.append(f'  Big b_{count};')
        extra = ', op' if reduction else ''
        lines.append(f'  CHORUS_TRY_MPI(big(call, {count}, {dtype}, b_{count}{extra}));')
    args = []
    side = None  # of the last counts array: displacements follow their counts
    here_done = False
    for i, (ptype, pname, is_array, _) in enumerate(big_params):
        itype = int_params[i][0]
        if pname in paired:
            args += [f'b_{pname}.count', f'b_{pname}.type']
        elif pname in paired.values():
            pass  # went along with its count
        elif is_array and ptype in ('const MPI_Count', 'const MPI_Aint') and itype == 'const int':
            if name in ('Reduce_scatter', 'Ireduce_scatter', 'Reduce_scatter_init'):
                lines.append(f'  std::vector<int> i_{pname};')
                lines.append(f'  CHORUS_TRY_MPI(ints_local(call, "{pname}", {pname}, comm, i_{pname}));')
            else:
                if 'counts' in pname:
                    side = pname.startswith('recv')
                recv_side = side if side is not None else pname.startswith('r')
                if rooted and not here_done:
                    lines.append('  const bool here = at_root(comm, root);  // the arrays count at the root only')
                    here_done = True
                lines.append(f'  std::vector<int> i_{pname};')
                lines.append(f'  CHORUS_TRY_MPI(ints(call, "{pname}", {pname}, comm, {str(neighbor).lower()}, '
                             f'{str(recv_side).lower()}, {"here" if rooted else "true"}, i_{pname}));')
            args.append(f'data_or_null(i_{pname})')
        else:
            args.append(pname)
    lines.append(f'  return PMPI_{base}({", ".join(args)});')
    lines.append('}')
    lines.append(f'CHORUS_ALIAS(MPI_{name}_c)')
    return '\n'.join(lines) + '\n'


def main():
    mpi_h, listing, output = sys.argv[1:4]
    names = [line.split('#')[0].strip() for line in open(listing)]
    names = [n for n in names if n]
    protos = prototypes(open(mpi_h).read())
    chunks = ['// Generated by lib/mpi/gen/large_count.py from include/mpi.h: do not edit.\n']
    for name in names:
        if f'{name}_c' not in protos or name not in protos:
            sys.exit(f'large_count.py: MPI_{name}_c or MPI_{name} has no PMPI_ prototype in {mpi_h}')
        big, small = params_of(protos[f'{name}_c']), params_of(protos[name])
        if len(big) != len(small):
            sys.exit(f'large_count.py: MPI_{name}_c and MPI_{name} differ in their parameters')
        chunks.append(generate(name, big, small))
    with open(output, 'w') as f:
        f.write('\n'.join(chunks))


if __name__ == '__main__':
    main()
