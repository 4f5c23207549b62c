"""Merges results files of tools/mutate/run.py (one per shard) into the mutation score: a JSON
summary and a Markdown page (counts, the score per file, every survivor with its diff).

Score = killed / (killed + survived with a history changed): the share of the mutants that change
a history which the oracles catch. Likely-equivalent survivors (no history changed at any
differential seed) and stillborn mutants are counted apart.
"""

import argparse
import collections
import json
import sys

OUTCOMES = ("killed", "survived-changed", "likely-equivalent", "stillborn")


def merge(paths):
    merged, hashes = {}, set()
    for path in paths:
        data = json.load(open(path))
        # Results written before the tree hash keyed them carry only runtime/'s hash.
        hashes.add(data.get("tree_hash") or data["runtime_hash"])
        merged.update(data["mutants"])
    if len(hashes) > 1:
        raise SystemExit(f"results for different trees: {sorted(hashes)}")
    return (hashes.pop() if hashes else None), merged


def score(mutants):
    counts = collections.Counter(m["outcome"] for m in mutants.values())
    judged = counts["killed"] + counts["survived-changed"]
    return counts, (counts["killed"] / judged if judged else None)


def markdown(rhash, mutants):
    counts, ratio = score(mutants)
    out = [f"tree content hash `{rhash}` (runtime/, simulator, scenarios, oracles): {len(mutants)} mutants judged.", ""]
    out.append("| killed | survived, history changed | likely equivalent | stillborn | score |")
    out.append("|---|---|---|---|---|")
    out.append(f"| {counts['killed']} | {counts['survived-changed']} | "
               f"{counts['likely-equivalent']} | {counts['stillborn']} | "
               f"{'n/a' if ratio is None else f'{100 * ratio:.1f}%'} |")
    out += ["", "| file | mutants | killed | survived (changed) | likely equivalent | stillborn "
            "| median s to kill |", "|---|---|---|---|---|---|---|"]
    by_file = collections.defaultdict(list)
    for m in mutants.values():
        by_file[m["file"]].append(m)
    for name in sorted(by_file):
        ms = by_file[name]
        c = collections.Counter(m["outcome"] for m in ms)
        kills = sorted(m["seconds"] for m in ms if m["outcome"] == "killed")
        median = f"{kills[len(kills) // 2]:.1f}" if kills else "-"
        out.append(f"| {name} | {len(ms)} | {c['killed']} | {c['survived-changed']} | "
                   f"{c['likely-equivalent']} | {c['stillborn']} | {median} |")
    killers = collections.Counter(m["killed_by"]["invariant"] for m in mutants.values()
                                  if m["outcome"] == "killed")
    out += ["", "Kills by invariant: " +
            ", ".join(f"{k} {v}" for k, v in killers.most_common()), ""]
    out += ["### Every mutant", "", "| mutant | outcome | killed by | stage | seconds | build s |",
            "|---|---|---|---|---|---|"]
    for m in sorted(mutants.values(), key=lambda m: (m["file"], m["line"], m["column"],
                                                     m["operator"])):
        k = m.get("killed_by") or {}
        where = f" @ {k['scenario']} {k['strategy']} seed {k['seed']}" if "scenario" in k else ""
        seconds = f"{m['seconds']:.1f}" if "seconds" in m else "-"
        out.append(f"| `{m['id']}` | {m['outcome']} | {k.get('invariant', '')}{where} | "
                   f"{m.get('stage', '')} | {seconds} | {m.get('build_s', 0):.0f} |")
    out.append("")
    for outcome, title in (("survived-changed", "Survivors with a history changed (oracle gaps?)"),
                           ("likely-equivalent", "Survivors with every history unchanged")):
        ms = sorted((m for m in mutants.values() if m["outcome"] == outcome),
                    key=lambda m: (m["file"], m["line"], m["column"], m["operator"]))
        if not ms:
            continue
        out += [f"### {title}", ""]
        for m in ms:
            changed = m.get("changed") or []
            note = f" ({len(changed)} differential runs changed, e.g. {changed[0]})" if changed else ""
            out += [f"- `{m['id']}`{note}", "", "```diff", m["diff"].rstrip("\n"), "```", ""]
    return "\n".join(out) + "\n"


def main(argv):
    p = argparse.ArgumentParser(prog="tools/mutate.sh report", description=__doc__)
    p.add_argument("results", nargs="+", help="results files of run.py (one per shard)")
    p.add_argument("--markdown", help="write the Markdown page here (default: stdout)")
    p.add_argument("--json", help="write the merged results and the score here")
    p.add_argument("--min-score", type=float, help="exit 1 when the score is below this (0..1)")
    args = p.parse_args(argv)
    rhash, mutants = merge(args.results)
    text = markdown(rhash, mutants)
    if args.markdown:
        open(args.markdown, "w").write(text)
    else:
        sys.stdout.write(text)
    counts, ratio = score(mutants)
    if args.json:
        json.dump({"tree_hash": rhash, "counts": dict(counts), "score": ratio,
                   "mutants": mutants}, open(args.json, "w"), indent=1, sort_keys=True)
    if args.min_score is not None and ratio is not None and ratio < args.min_score:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
