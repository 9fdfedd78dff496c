"""``coinche-rl presets``: the rule presets and their parameters."""

from __future__ import annotations

from ..rules import PRESETS, presets_markdown


def cmd_presets(args) -> int:
    if args.markdown:
        print(presets_markdown())
        return 0
    print(presets_table())
    return 0


def presets_table(width: int = 100) -> str:
    """Every preset with every parameter, as text at most ``width`` columns wide: the
    presets in groups of columns that fit, one table per group, each under the parameter
    names, the columns separated by `` | ``."""
    names = list(PRESETS)
    values = {n: {k: str(v) for k, v in PRESETS[n].to_dict().items() if k != "name"}
              for n in names}
    fields = list(values[names[0]])
    label = max(map(len, fields + ["parameter"]))
    col = {n: max(len(n), *map(len, values[n].values())) for n in names}
    groups, used = [[]], label
    for n in names:
        if groups[-1] and used + 3 + col[n] > width:
            groups.append([])
            used = label
        groups[-1].append(n)
        used += 3 + col[n]
    blocks = []
    for group in groups:
        rows = [f"{'parameter':{label}s} | " + " | ".join(f"{n:{col[n]}s}" for n in group),
                "-" * label + "-+-" + "-+-".join("-" * col[n] for n in group)]
        rows += [f"{f:{label}s} | " + " | ".join(f"{values[n][f]:{col[n]}s}" for n in group)
                 for f in fields]
        blocks.append("\n".join(r.rstrip() for r in rows))
    return (f"{len(names)} rule presets (coinche-rl presets --markdown: one markdown table);\n"
            f"--rules changes any parameter: --rules ffb:must_undertrump=true,target=2000\n\n"
            + "\n\n".join(blocks))


def add_parser(sub) -> None:
    pr = sub.add_parser("presets", help="list rule presets and their parameters")
    pr.add_argument("--markdown", action="store_true", help="print the table as markdown")
    pr.set_defaults(func=cmd_presets)
