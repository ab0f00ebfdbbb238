"""Each student notebook's length in screens, and an estimate of its minutes against the
time it states.

    python tools/notebook_length.py [FOLDER]    (default: notebooks/, the executed student
                                                 edition; e.g. a build in /tmp)

A *screen* is what fits in about 900 px of JupyterLab at default zoom. The height of
each cell is estimated from what it renders, with JupyterLab 4's default sizes:

* markdown: 24 px a line of text (14 px font, lines wrapped at 100 characters), 40 px
  a heading, 30 px a table row, 12 px a blank line, 16 px around the cell;
* code: 18 px a line (13 px font), 24 px around the cell;
* outputs: 18 px a line of text (at most 60 lines: JupyterLab scrolls longer ones),
  30 px a row of an HTML table, an image at its own height (scaled to an 900 px wide
  column), a widget (an explorer, a cell tagged ``nbval-ignore-output``: the file keeps
  no view of it) 560 px.

Minutes are a model, not a measurement: reading prose at 130 words a minute
(technical text, read once), 2 s a row of a markdown table (a glossary is skimmed,
not read), 0.3 minute per code cell (read and run), and per exercise
10 minutes for a build-it, 4 for a closed one, 5 for an open one. Compare with the
``**Time:** about N minutes`` each notebook states.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
SCREEN_PX = 900
WIDTH_PX = 900
WRAP = 100


def _png_height(data: str) -> int:
    raw = base64.b64decode(data[:100])
    width, height = struct.unpack(">II", raw[16:24])
    return int(height * min(1.0, WIDTH_PX / width)) if width else height


def _markdown_px(text: str) -> float:
    px = 16.0
    for line in text.splitlines():
        if not line.strip():
            px += 12
        elif line.lstrip().startswith("#"):
            px += 40
        elif line.lstrip().startswith("|"):
            px += 30
        else:
            px += 24 * max(1, -(-len(line) // WRAP))
    return px


def _output_px(output: dict) -> float:
    data = output.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data:
        return 560
    if "image/png" in data:
        return _png_height("".join(data["image/png"]))
    if "text/html" in data:
        html = "".join(data["text/html"])
        rows = html.count("<tr")
        if rows:
            return 30 * rows + 10
        return 24 * max(1, html.count("<br") + html.count("<div") + html.count("<p"))
    text = "".join(output.get("text", data.get("text/plain", "")))
    return 18 * min(60, len(text.splitlines()))


def measure(path: Path) -> tuple[float, float, int, int]:
    """(screens, estimated minutes, markdown words, code cells) of one notebook."""
    nb = json.loads(path.read_text())
    px, words, code, rows = 0.0, 0, 0, 0
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            px += _markdown_px(source)
            prose = [ln for ln in source.splitlines() if not ln.lstrip().startswith("|")]
            words += len(re.findall(r"[A-Za-z]\w*", "\n".join(prose)))
            rows += len(source.splitlines()) - len(prose)
        else:
            code += 1
            px += 24 + 18 * len(source.splitlines())
            if "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []):
                px += 560   # an explorer: its widget views are stripped from the file
            else:
                px += sum(_output_px(o) for o in cell.get("outputs", []))
    text = (SRC / path.name.replace(".ipynb", ".py")).read_text()
    build = len(re.findall(r"^# \*\*Exercise \d+ \(build it\)", text, re.M))
    open_ = len(re.findall(r"^# \*\*Exercise \d+ \(open", text, re.M))
    closed = len(re.findall(r"^# \*\*Exercise \d+(?: \(capstone\))?\.\*\*", text, re.M))
    exercises = 10 * build + 5 * open_ + 4 * closed
    minutes = words / 130 + rows / 30 + 0.3 * code + exercises
    return px / SCREEN_PX, minutes, words, code


def stated(stem: str) -> int | None:
    text = (SRC / f"{stem}.py").read_text()
    m = re.search(r"\*\*Time:\*\*[^\n]*?about (\d+) minutes", text)
    m = m or re.search(r"about (\d+) minutes", text)
    return int(m.group(1)) if m else None


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "notebooks"
    print("| notebook | screens | est. minutes | stated | words | code cells |")
    print("|---|---|---|---|---|---|")
    for path in sorted(folder.glob("[0-9A]*.ipynb")):
        screens, minutes, words, code = measure(path)
        said = stated(path.stem)
        print(f"| {path.stem} | {screens:.0f} | {minutes:.0f} | {said or '-'} | {words} | "
              f"{code} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
