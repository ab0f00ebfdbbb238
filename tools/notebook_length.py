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

Minutes are a model of a careful student studying alone, reading and doing
(:data:`MODEL`): prose at 110 words a minute (technical text, read with care), the
words a cell prints (tables of reasons, printed lines) at 100 a minute, 0.7 minute a
code cell (read, run, look at what it shows), 1 minute a figure, 5 an explorer, and
per exercise 10 minutes for a build-it, 6 for a closed one, 5 for an open one.
Calibrated against the reviews of 2026-12-06 (careful students, exercises included):
00 30-40 minutes, 02 100-130, 03 70-80, 04 70-90, 06 90-120, 07 35-45, 08 40-50
(the model gives 37, 110, 84, 76, 110, 42, 39). Each notebook's
``**Time:** about N minutes`` (and its Turkish ``yaklaşık N dakika``) is the model's
figure rounded to 5 minutes; ``tests/notebooks/test_notebook_length.py`` keeps them together.
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


#: Minutes per unit of the reading-and-doing model (see the module's docstring).
MODEL = {
    "prose_wpm": 110,
    "output_wpm": 100,
    "code": 0.7,
    "figure": 1.0,
    "explorer": 5.0,
    "build": 10.0,
    "closed": 6.0,
    "open": 5.0,
}


def exercises(stem: str) -> tuple[int, int, int]:
    """(build-it, closed, open) exercises of a source, by their headings."""
    text = (SRC / f"{stem}.md").read_text()
    build = len(re.findall(r"^\*\*Exercise \d+ \(build it\)", text, re.M))
    open_ = len(re.findall(r"^\*\*Exercise \d+ \(open", text, re.M))
    closed = len(re.findall(r"^\*\*Exercise \d+(?: \(capstone\))?\.\*\*", text, re.M))
    return build, closed, open_


def measure(path: Path) -> tuple[float, float, int, int]:
    """(screens, estimated minutes, markdown words, code cells) of one notebook."""
    nb = json.loads(path.read_text())
    px, words, code, out_words, figures, explorers = 0.0, 0, 0, 0, 0, 0
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            px += _markdown_px(source)
            prose = [ln for ln in source.splitlines() if not ln.lstrip().startswith("|")]
            words += len(re.findall(r"[A-Za-z]\w*", "\n".join(prose)))
        else:
            code += 1
            px += 24 + 18 * len(source.splitlines())
            if "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []):
                px += 560  # an explorer: its widget views are stripped from the file
                explorers += 1
            else:
                px += sum(_output_px(o) for o in cell.get("outputs", []))
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if "image/png" in data:
                    figures += 1
                    continue
                text = "".join(out.get("text", data.get("text/plain", "")))
                out_words += len(re.findall(r"[A-Za-z]{3,}", text))
    build, closed, open_ = exercises(path.stem)
    m = MODEL
    minutes = (
        words / m["prose_wpm"]
        + out_words / m["output_wpm"]
        + m["code"] * code
        + m["figure"] * figures
        + m["explorer"] * explorers
        + m["build"] * build
        + m["closed"] * closed
        + m["open"] * open_
    )
    return px / SCREEN_PX, minutes, words, code


def stated(stem: str) -> int | None:
    """The minutes the notebook's English heading states."""
    text = (SRC / f"{stem}.md").read_text()
    m = re.search(r"\*\*Time:\*\*[^\n]*?about (\d+) minutes", text)
    m = m or re.search(r"about\s+(\d+)\s+minutes", text)
    return int(m.group(1)) if m else None


def stated_tr(stem: str) -> int | None:
    """The minutes the notebook's Turkish heading states (``yaklaşık N dakika``)."""
    text = (SRC / f"{stem}.md").read_text()
    m = re.search(r"yaklaşık\s+(\d+)\s+dakika", text)
    return int(m.group(1)) if m else None


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "notebooks"
    print("| notebook | screens | est. minutes | stated | words | code cells |")
    print("|---|---|---|---|---|---|")
    for path in sorted(folder.glob("[0-9A]*.ipynb")):
        screens, minutes, words, code = measure(path)
        said = stated(path.stem)
        print(f"| {path.stem} | {screens:.0f} | {minutes:.0f} | {said or '-'} | {words} | {code} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
