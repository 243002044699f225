"""The conformance run's format drift report.

Every home a conformance test built was surveyed before it was removed (`corral-cli formats`,
saved under `target/conformance/formats/`). This merges those surveys and writes
`target/conformance/drift.md`: the client version, every line type and `attachment.type` the
client wrote, and those Corral's reader does not know by name. Printed too.

Exit status: 1 when the pinned client wrote a kind Corral does not know (the pinned version is
the one the vocabulary is kept for: a kind missing there is a regression); with any other
version (`make conformance CLAUDE_CODE_VERSION=latest`) the report is the point, and it exits 0.
"""

import datetime
import json
import sys
from pathlib import Path

from harness import ROOT, VERSION, client_version

OUT = ROOT / "target" / "conformance"


def merge(surveys):
    lines, attachments, versions = {}, {}, set()
    for s in surveys:
        versions.update(s["versions"])
        for table, key in ((lines, "lineTypes"), (attachments, "attachmentTypes")):
            for k in s[key]:
                row = table.setdefault(k["name"], {"count": 0, "reading": k["reading"], "example": k["example"]})
                row["count"] += k["count"]
    return lines, attachments, sorted(versions)


def table(title, rows):
    out = ["| %s | lines | Corral |" % title, "|---|---:|---|"]
    for name, r in sorted(rows.items(), key=lambda kv: (-kv[1]["count"], kv[0])):
        out.append("| `%s` | %d | %s |" % (name, r["count"], r["reading"] or "**not known**"))
    return out


def main():
    surveys = [json.loads(p.read_text()) for p in sorted((OUT / "formats").glob("*.json"))]
    if not surveys:
        print("drift: no survey was recorded (did the conformance tests run?)")
        return 1
    version = client_version()
    lines, attachments, versions = merge(surveys)
    unknown = [n for n, r in lines.items() if not r["reading"]] + [n for n, r in attachments.items() if not r["reading"]]
    report = [
        "# Format drift: Claude Code %s, %s" % (version, datetime.date.today().isoformat()),
        "",
        "%d homes surveyed; versions written: %s." % (len(surveys), ", ".join(versions) or "none"),
        "",
        *table("line type", lines),
        "",
        *table("attachment.type", attachments),
        "",
        ("Kinds Corral does not know by name: " + ", ".join("`%s`" % n for n in unknown)) if unknown else "Corral knows every kind by name.",
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "drift.md").write_text("\n".join(report) + "\n")
    print("\n".join(report))
    print("(written to %s)" % (OUT / "drift.md"))
    if unknown and version == VERSION:
        print("drift: the pinned client %s writes kinds Corral does not know by name: %s" % (version, ", ".join(unknown)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
