#!/usr/bin/env python3
"""Call cycles among the files of a program or library, read from nm.

usage: check_cycles.py [--nm NM] [--quiet] [-B BUILD -t TARGET...] [PATH...]

Each PATH is an object file or a folder searched for *.o (a CMake target's
CMakeFiles/TARGET.dir); -t TARGET adds the objects of a CMake target found
under the build tree BUILD.  A PATH may be a CMake list (paths joined by
";", as $<TARGET_OBJECTS:tgt> gives them to a test).  One node per object file; an edge A -> B when A
references (nm: U, or weak undefined) a global symbol that B defines.  Every
name counts, MPI_* included: where a drop-in in the set defines MPI_Send,
each object calling MPI_Send has an edge to it.  Data is no exception
either: reading a global defined elsewhere is an edge.

Prints every strongly connected component of more than one file: its files
and, for each edge inside it, one symbol that causes the edge.  Exit status
1 if there is any, 0 if the graph is acyclic, 2 on a usage error (no object
files, nm failed).

Give one build's objects once: a symbol defined twice (the same sources in a
shared and a static library) makes edges to both copies.

  scripts/check_cycles.py -B build/openmpi -t cartbench          # bench/
  scripts/check_cycles.py -B build/openmpi -t cartcoll -t cartcoll_pure -t cartcoll_preload   # src/
"""
import argparse
import os
import subprocess
import sys

# nm types of a definition another object can bind to (upper case: global;
# V/W: weak, still a definition; C: common).
DEFINED = set("ABCDGIRSTVWu")
UNDEFINED = set("Uvw")  # v/w lower case: weak undefined


def fail(msg):
    """A usage error: exit 2, so that it never reads as a cycle (1)."""
    print("check_cycles: " + msg, file=sys.stderr)
    sys.exit(2)


def objects(paths):
    """The object files named or found under the folders, sorted."""
    found = []
    for p in [q for arg in paths for q in arg.split(";") if q]:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                found += [os.path.join(root, f) for f in files if f.endswith(".o")]
        elif os.path.isfile(p):
            found.append(p)
        else:
            fail("no such file or folder: %s" % p)
    return sorted(set(found))


def target_dirs(build, targets):
    """CMakeFiles/TARGET.dir of each target, wherever in the build tree."""
    found = {t: [] for t in targets}
    for root, dirs, _ in os.walk(build):
        if os.path.basename(root) == "CMakeFiles":
            found_here = [d[:-4] for d in dirs if d.endswith(".dir") and d[:-4] in found]
            for t in found_here:
                found[t].append(os.path.join(root, t + ".dir"))
    for t, where in found.items():
        if not where:
            fail("no CMakeFiles/%s.dir under %s" % (t, build))
    return [d for t in targets for d in found[t]]


def label(path):
    """A short name: the source path CMake encodes after TARGET.dir/."""
    norm = path.replace(os.sep, "/")
    at = norm.rfind(".dir/")
    name = norm[at + 5:] if at >= 0 else norm
    return name[:-2] if name.endswith(".o") else name


def symbols(nm, path):
    """(defined, undefined) global names of one object file."""
    try:
        out = subprocess.run([nm, "-P", path], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail("%s %s failed: %s" % (nm, path, e))
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind in UNDEFINED:
            undefined.add(name)
        elif kind in DEFINED:
            defined.add(name)
    return defined, undefined


def graph(files, nm):
    """edges[a][b] = the sorted symbols through which file a uses file b."""
    syms = {f: symbols(nm, f) for f in files}
    owners = {}
    for f in files:
        for s in syms[f][0]:
            owners.setdefault(s, []).append(f)
    edges = {f: {} for f in files}
    for a in files:
        for s in syms[a][1]:
            for b in owners.get(s, ()):
                if b != a:
                    edges[a].setdefault(b, []).append(s)
    for a in files:
        for b in edges[a]:
            edges[a][b].sort()
    return edges


def components(edges):
    """Tarjan's strongly connected components, iteratively (no recursion
    limit on long chains)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    ap = argparse.ArgumentParser(description="Report call cycles among object files (nm).")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"), help="nm program (default: $NM or nm)")
    ap.add_argument("--quiet", action="store_true", help="only the summary line")
    ap.add_argument("-B", "--build", help="CMake build tree for -t")
    ap.add_argument("-t", "--target", action="append", default=[], help="a CMake target's objects (with -B)")
    ap.add_argument("paths", nargs="*", help="object files or folders holding them")
    args = ap.parse_args()
    if args.target and not args.build:
        ap.error("-t needs -B BUILD")
    if not args.paths and not args.target:
        ap.error("no PATH and no -t TARGET")
    args.paths += target_dirs(args.build, args.target) if args.target else []
    files = objects(args.paths)
    if not files:
        print("check_cycles: no object files under %s" % " ".join(args.paths), file=sys.stderr)
        return 2
    edges = graph(files, args.nm)
    cycles = sorted((c for c in components(edges) if len(c) > 1), key=lambda c: (-len(c), c))
    nedges = sum(len(e) for e in edges.values())
    for n, comp in enumerate(cycles, 1):
        if args.quiet:
            break
        members = set(comp)
        print("cycle %d: %d files" % (n, len(comp)))
        for f in comp:
            print("  %s" % label(f))
        for a in comp:
            for b in sorted(edges[a]):
                if b in members:
                    s = edges[a][b]
                    more = " (+%d more)" % (len(s) - 1) if len(s) > 1 else ""
                    print("    %s -> %s: %s%s" % (label(a), label(b), s[0], more))
    sizes = ", ".join(str(len(c)) for c in cycles)
    print("check_cycles: %d files, %d edges, %d cycle(s)%s" % (len(files), nedges, len(cycles),
                                                              " of " + sizes + " files" if cycles else ""))
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
