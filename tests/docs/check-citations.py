#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Citations check (suite `docs`): the tree stands on its own.

Every file under src/ gst/ tests/ bench/ docs/ and README.md is scanned
for names of Markdown files (a word ending in ".md"). Each one must be a
file of the tree: a relative name is looked up next to the citing file,
then from the source root, then in docs/; an absolute path never counts
(it names a file outside the tree). Web addresses (http://, https://) are skipped.

No file holds a line that a merge left in conflict ("<<<" "<<<< " or
">>>" ">>>> " at its start): a document with two versions of a row says
neither.

The names of the documents these replaced (the MXL flow and wire
specifications and the libfabric notes kept outside the tree) must not
appear at all, with or without ".md".

A citation of one of the three format documents (docs/flow-format.md,
docs/wire-format.md, docs/libfabric-notes.md) is also checked for the
sections it names: the text after the file name up to the end of the
citation (a closing parenthesis, a semicolon, the end of the sentence or
of the comment, or another file name) is read for section numbers ("§2.3",
ranges "§2.1-§2.5" and "§2.1-2.3": both ends), pitfall numbers ("P9",
"P1-P3") and test-case labels after a section ("§8.3 U2", "§8.1 B1-B9",
"§8.2 X4", "§8.1 case 5", "cases 5-7, 13"). Each must exist in the cited
document: a heading "## 2." / "### 2.3 ...", a pitfall "P9." at the start
of a list item or heading, a label in bold "**U2**" or a numbered case
"5." inside that section.

Usage: check-citations.py [SOURCE_ROOT]   (default: this file's ../..)
Prints one line per defect; exit status 1 when there is any, 0 otherwise.
"""
import os
import re
import sys

SCAN_DIRS = ("src", "gst", "tests", "bench", "docs")
SCAN_FILES = ("README.md",)
SKIP_SUFFIXES = (".png", ".jpg", ".gz", ".so", ".o", ".a", ".pyc")
FORMAT_DOCS = ("docs/flow-format.md", "docs/wire-format.md",
               "docs/libfabric-notes.md")

# Out-of-tree documents, spelt in pieces so that this file does not cite them.
OLD_NAMES = re.compile(r"\b(?:mxl-" r"flows|mxl-fabrics-" r"wire|libfabric-" r"local)\b")
# Spelt in pieces so that this file does not hold one.
CONFLICT = re.compile(r"^(?:" "<" "{7}|" ">" "{7}) ", re.M)
MD_NAME = re.compile(r"(?<![\w./~-])((?:https?://)?[\w./~-]*[\w-]\.md)(?![\w-])")
HEADING = re.compile(r"^(#{1,6})\s+(\d+(?:\.\d+)*)\.?(?:\s|$)", re.M)
PITFALL = re.compile(r"^(?:#{1,6}\s+|\s*[-*]\s+\*\*)P(\d+)\b", re.M)
# Where a citation ends: ")" ";" "]" "*/", end of sentence, blank line.
CITATION_END = re.compile(r"\)|;|\]|\*/|\.(?:\s|$)|\n\s*\n|`")
CONTINUATION = re.compile(r"\n[ \t]*(?:\*(?!/)|//|#)?[ \t]*")
SECTION = re.compile(
    r"§\s*(\d+(?:\.\d+)*)(?:\s*[-–]\s*§?\s*(\d+(?:\.\d+)*))?")
PITFALL_REF = re.compile(r"\bP(\d+)(?:\s*[-–]\s*P?(\d+))?\b")
LABEL = re.compile(r"\b([BISUX])(\d+)(?:\s*[-–/]\s*\1?(\d+))?\b")
CASES = re.compile(r"\bcases?\s+((?:\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*|\s+and\s+)?)+)")


def scanned_files(root):
    for name in SCAN_FILES:
        path = os.path.join(root, name)
        if os.path.isfile(path):
            yield name
    for top in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(filenames):
                if not f.endswith(SKIP_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def resolve(root, citing, name):
    """Returns the root-relative path @name names, or None."""
    if name.startswith("/") or name.startswith("~"):
        return None
    for base in (os.path.dirname(citing), "", "docs"):
        rel = os.path.normpath(os.path.join(base, name))
        if not rel.startswith("..") and os.path.isfile(os.path.join(root, rel)):
            return rel
    return None


class FormatDoc:
    def __init__(self, text):
        self.text = text
        self.sections = {}          # "2.3" -> body text of that section
        heads = list(HEADING.finditer(text))
        for i, m in enumerate(heads):
            level, number = len(m.group(1)), m.group(2)
            end = len(text)
            for n in heads[i + 1:]:
                if len(n.group(1)) <= level:
                    end = n.start()
                    break
            self.sections[number] = text[m.end():end]
        self.pitfalls = {int(p) for p in PITFALL.findall(text)}

    def has_label(self, section, label):
        body = self.sections.get(section, "")
        return re.search(r"\*\*%s\*\*|\|\s*%s\s*\|" % (label, label), body) is not None

    def has_case(self, section, number):
        body = self.sections.get(section, "")
        return re.search(r"^\s*%d\.\s" % number, body, re.M) is not None


def expand(first, last):
    if last is None:
        return [first]
    a, b = int(first), int(last)
    return [str(a), str(b)] if a <= b else None


def check_citation(doc_path, doc, window, where, errors):
    section = None
    pos = 0
    tokens = []
    for m in SECTION.finditer(window):
        tokens.append((m.start(), "section", m))
    for m in PITFALL_REF.finditer(window):
        tokens.append((m.start(), "pitfall", m))
    for m in LABEL.finditer(window):
        tokens.append((m.start(), "label", m))
    for m in CASES.finditer(window):
        tokens.append((m.start(), "cases", m))
    for pos, kind, m in sorted(tokens, key=lambda t: t[0]):
        if kind == "section":
            ends = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
            if m.group(2) and "." not in m.group(2) and "." in m.group(1):
                # "§1.7-11" is not a form we write; "§2.1-2.3" is.
                pass
            for number in ends:
                if number not in doc.sections:
                    errors.append("%s: %s has no section §%s" % (where, doc_path, number))
            section = ends[-1]
        elif kind == "pitfall":
            if doc_path != "docs/libfabric-notes.md":
                continue
            nums = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
            for n in nums:
                if int(n) not in doc.pitfalls:
                    errors.append("%s: %s has no pitfall P%s" % (where, doc_path, n))
        elif kind == "label":
            if section is None:
                continue
            letter = m.group(1)
            nums = [m.group(2)] + ([m.group(3)] if m.group(3) else [])
            for n in nums:
                if not doc.has_label(section, letter + n):
                    errors.append("%s: %s §%s has no case %s%s"
                                  % (where, doc_path, section, letter, n))
        elif kind == "cases":
            if section is None:
                continue
            for part in re.split(r"\s*,\s*|\s+and\s+", m.group(1).strip()):
                if not part:
                    continue
                bounds = re.split(r"\s*[-–]\s*", part)
                for n in bounds:
                    if not doc.has_case(section, int(n)):
                        errors.append("%s: %s §%s has no case %s"
                                      % (where, doc_path, section, n))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(os.path.dirname(__file__), "..", ".."))
    docs = {}
    for path in FORMAT_DOCS:
        full = os.path.join(root, path)
        if os.path.isfile(full):
            with open(full, encoding="utf-8") as f:
                docs[path] = FormatDoc(f.read())
    errors = []
    count = 0
    for rel in scanned_files(root):
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        for m in CONFLICT.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            errors.append("%s:%d: a merge conflict's marker" % (rel, line))
        for m in OLD_NAMES.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            errors.append("%s:%d: names %s, a document outside the tree"
                          % (rel, line, m.group(0)))
        for m in MD_NAME.finditer(text):
            name = m.group(1)
            if name.startswith(("http://", "https://")):
                continue
            line = text.count("\n", 0, m.start()) + 1
            where = "%s:%d" % (rel, line)
            count += 1
            target = resolve(root, rel, name)
            if target is None:
                errors.append("%s: cites %s, which is not a file of the tree" % (where, name))
                continue
            if target not in docs:
                continue
            rest = text[m.end():m.end() + 400]
            nxt = MD_NAME.search(rest)
            if nxt:
                rest = rest[:nxt.start()]
            end = CITATION_END.search(rest)
            if end:
                rest = rest[:end.start()]
            window = CONTINUATION.sub(" ", rest)
            check_citation(target, docs[target], window, where, errors)
    for e in errors:
        print(e)
    print("%d citations of .md files checked, %d defects" % (count, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
