"""Keep the catalogue of run-time texts (retrylab/i18n/locale) in step with the code.

Every text retrylab shows is marked at its call site (``_("...")``, ``N_``,
``ngettext``, ``pgettext``) in the package. This script
uses Babel, the standard gettext tooling for Python:

    python tools/catalog.py extract    list every marked message (the .pot, on stdout)
    python tools/catalog.py update     append new messages to each .po (untranslated), every
                                       other entry left as it is; list the unused ones
    python tools/catalog.py compile    compile each .po to the .mo the package reads
    python tools/catalog.py missing    print the messages a language lacks (exit 1 if any)

``tests/viz/test_catalog.py`` fails when a marked message has no translation, when a
translation's placeholders differ from its English, or when a .mo is stale.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "retrylab" / "i18n" / "locale"
DOMAIN = "retrylab"
#: Where marked messages live: the package (a notebook marks none: its checkers do).
SOURCES = (ROOT / "retrylab",)
KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "NP_": ((1, "c"), 2),
}
LANGS = ("tr",)


def extracted() -> Catalog:
    """Every marked message in the sources, with where it is used."""
    catalog = Catalog(project="retrylab", domain=DOMAIN)
    for source in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
            str(source),
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True,
        ):
            where = (str((source / filename).relative_to(ROOT)), lineno)
            catalog.add(message, None, [where], auto_comments=comments, context=context)
    return catalog


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def compiled(lang: str) -> bytes:
    """The .mo bytes for ``lang``'s .po (fuzzy entries left out, as msgfmt does)."""
    out = io.BytesIO()
    write_mo(out, read(lang), use_fuzzy=False)
    return out.getvalue()


def update(lang: str) -> tuple[int, list[str]]:
    """Append the marked messages ``lang``'s .po lacks, untranslated, at its end.

    Every entry already there stays as it is, byte for byte: its place, its
    translator's comments, its wrapping (rewriting the whole file with Babel moved and
    rewrapped about 9,000 lines and dropped the comments). Returns how many were added
    and the ids of the entries no code marks any more.
    """
    po = read(lang)
    template = extracted()
    new = Catalog(locale=lang, domain=DOMAIN)
    for message in template:
        if message.id and po.get(message.id, context=message.context) is None:
            new.add(
                message.id,
                None,
                auto_comments=message.auto_comments,
                context=message.context,
                flags=message.flags,
            )
    if len(new):
        out = io.BytesIO()
        write_po(out, new, width=100, omit_header=True, no_location=True, sort_output=False)
        path = po_path(lang)
        path.write_bytes(path.read_bytes().rstrip(b"\n") + b"\n\n" + out.getvalue().lstrip(b"\n"))
    unused = [
        m.id if isinstance(m.id, str) else m.id[0]
        for m in po
        if m.id and template.get(m.id, context=m.context) is None
    ]
    return len(new), unused


def missing(lang: str) -> list[str]:
    """Marked messages ``lang`` has no translation for."""
    po = read(lang)
    gaps = []
    for message in extracted():
        if not message.id:
            continue
        have = po.get(message.id, context=message.context)
        strings = (
            []
            if have is None
            else (list(have.string) if isinstance(have.string, (list, tuple)) else [have.string])
        )
        if have is None or have.fuzzy or not all(strings):
            gaps.append(message.id if isinstance(message.id, str) else message.id[0])
    return gaps


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "missing"
    if command == "extract":
        out = io.BytesIO()
        write_po(out, extracted(), width=100)
        sys.stdout.write(out.getvalue().decode())
        return 0
    for lang in LANGS:
        if command == "update":
            added, unused = update(lang)
            print(
                f"{lang}: {added} new messages appended untranslated; {len(unused)} no "
                "code uses any more (remove them by hand when no edition needs them):"
            )
            for message in unused:
                print(f"  {message!r}")
        elif command == "compile":
            po_path(lang).with_suffix(".mo").write_bytes(compiled(lang))
        elif command == "missing":
            gaps = missing(lang)
            for gap in gaps:
                print(f"{lang}: {gap!r}")
            if gaps:
                return 1
        else:
            print(__doc__)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
