"""The floors file and the floor check that include_floors.py (C and C++
includes) and python_floors.py (Python imports) share: `N path...` puts
paths on floor N, `allow A B` lets A use B on the same floor, and each lint
may take lines of its own keywords (python_floors.py: `root DIR`)."""
import sys


def read_floors(path, keywords=()):
    """-> ({path: floor}, {(user, used)} allowed, {keyword: [values]})."""
    floor, allowed, extra = {}, set(), {k: [] for k in keywords}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "allow" and len(words) == 3:
                allowed.add((words[1], words[2]))
            elif words[0] in extra and len(words) == 2:
                extra[words[0]].append(words[1])
            elif words[0].isdigit() and len(words) > 1:
                for p in words[1:]:
                    if p in floor:
                        sys.exit(f"{path}:{n}: {p} has two floors")
                    floor[p] = int(words[0])
            else:
                forms = ["`N path...`", "`allow A B`"] + [f"`{k} VALUE`" for k in keywords]
                sys.exit(f"{path}:{n}: none of " + ", ".join(forms))
    return floor, allowed, extra


def violations(graph, floor, allowed, folder_of, unowned, verb):
    """Messages, one per unit without a floor (unowned(f): the folder or
    file to name, None for none) and per use (graph: file -> used files)
    that goes up, or sideways without an `allow`; and the number of uses
    between folders (folder_of(f): f's floor path, None without one)."""
    found = [f"{u} has no floor" for u in sorted({unowned(f) for f in graph} - {None})]
    crossing = 0
    for f in sorted(graph):
        a = folder_of(f)
        for t in sorted(graph[f]):
            b = folder_of(t)
            if a == b or a is None or b is None:
                continue
            crossing += 1
            if floor[b] > floor[a]:
                found.append(f"{f} (floor {floor[a]}) {verb} {t} (floor {floor[b]}): a higher floor")
            elif floor[b] == floor[a] and (a, b) not in allowed:
                found.append(f"{f} {verb} {t}: {a}/ and {b}/ share floor {floor[a]}, "
                             f"and `allow {a} {b}` is not declared")
    return found, crossing
