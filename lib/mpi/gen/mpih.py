"""Reading include/mpi.h for the binding generators (large_count.py, collectives.py,
forward.py).

mpi.h is the one description of the API's signatures: every function has a
`int PMPI_x(...);` prototype there, with parameter names.
"""
import re


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


def decl(params, unnamed=()):
    """The parameter list as mpi.h spells it (pointer stars next to the name);
    parameters named in `unnamed` lose their names (the body does not use them)."""
    parts = []
    for ptype, name, is_array, raw in params:
        t = ptype.replace('*', ' *').replace('  ', ' ')
        shown = '' if name in unnamed else name
        sep = '' if t.endswith('*') or not shown else ' '
        parts.append(f'{t}{sep}{shown}{"[]" if is_array else ""}')
    return ', '.join(parts)


def list_section(path, unit):
    """The lines of a generator's list file under its [unit] header (`#` starts
    a comment), each split at `|` into its stripped fields."""
    entries, section = [], None
    for line in open(path):
        line = line.split('#')[0].strip()
        if not line:
            continue
        if line.startswith('[') and line.endswith(']'):
            section = line[1:-1]
        elif section == unit:
            entries.append([f.strip() for f in line.split('|')])
    return entries
