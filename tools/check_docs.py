#!/usr/bin/env python3
"""The prose budget (tools/check-docs.sh runs it; docs/design.md, "Budgets").

Over every tracked Markdown file (git ls-files '*.md'):
  1. README.md has at most README_CAP lines: it is the front door, the rest is in docs/ and results/.
  2. Every hand-written page under docs/, results/ and bench/ opens with its purpose: a '# ' title, then a
     paragraph of prose (not a table, list, code block or picture). A guide page (docs/guide/) opens with the
     question it answers, so that paragraph has a '?'. Study reports (report.md) are written by
     `rotor compare` and exempt.
  3. Every relative link and image resolves: [text](path), ![alt](path) and <img src="path"> name a tracked
     file or folder (relative to the page), and a #fragment names a heading of the page it points to.
Prints one `path:line: what` per violation and exits 1 if there is any.
Usage: check_docs.py [ROOT]   (default: the repository this script is in)
"""
import os
import re
import subprocess
import sys
import unicodedata

README_CAP = 300
PURPOSE_DIRS = ("docs/", "results/", "bench/")

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMG_SRC = re.compile(r"<img[^>]*\ssrc=\"([^\"]+)\"")


def tracked(root):
    """The repository's files: git's list, or outside a checkout (a source tarball) every file but build trees."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for here, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not (d.startswith(("build", ".")) or d in ("runs", "data"))]
            found += [os.path.relpath(os.path.join(here, n), root) for n in names]
        return found


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def prose_lines(text):
    """(number, line) outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield n, line


def anchors(text):
    seen, out = {}, set()
    for _, line in prose_lines(text):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            k = seen.get(base, 0)
            out.add(base if k == 0 else f"{base}-{k}")
            seen[base] = k + 1
    return out


def check_purpose(path, text, problems):
    lines = text.split("\n")
    if not lines or not lines[0].startswith("# "):
        problems.append(f"{path}:1: a page opens with its '# ' title")
        return
    rest = [(n, l) for n, l in enumerate(lines[1:], 2) if l.strip()]
    if not rest:
        problems.append(f"{path}:1: a title and nothing after it")
        return
    n, first = rest[0]
    if re.match(r"^\s*([#|>`!<*-]|\d+\.|~~~|```)", first) and not first.startswith("**"):
        problems.append(f"{path}:{n}: the first paragraph after the title says what the page is for, in prose")
        return
    paragraph = []
    for _, l in rest:
        if not l.strip() or l.lstrip().startswith(("#", "|", "```")):
            break
        paragraph.append(l)
    if path.startswith("docs/guide/") and path != "docs/guide/README.md" and "?" not in " ".join(paragraph):
        problems.append(f"{path}:{n}: a guide page opens with the question it answers (no '?' in its first paragraph)")


def check_links(root, path, text, files, folders, page_anchors, problems):
    here = os.path.dirname(path)
    for n, line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for target in LINK.findall(line) + IMG_SRC.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # http:, https:, mailto:
            file_part, _, fragment = target.partition("#")
            if file_part:
                resolved = os.path.normpath(os.path.join(here, file_part))
                if resolved not in files and resolved not in folders:
                    problems.append(f"{path}:{n}: link to {target}: no tracked file {resolved}")
                    continue
            else:
                resolved = path
            if fragment and resolved.endswith(".md"):
                if resolved not in page_anchors:
                    with open(os.path.join(root, resolved), encoding="utf-8") as f:
                        page_anchors[resolved] = anchors(f.read())
                if fragment.lower() not in page_anchors[resolved]:
                    problems.append(f"{path}:{n}: link to {target}: {resolved} has no heading #{fragment}")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    all_files = [p for p in tracked(root) if os.path.exists(os.path.join(root, p))]
    files = set(all_files)
    folders = {os.path.dirname(p) for p in files}
    for p in list(folders):
        while p:
            p = os.path.dirname(p)
            folders.add(p)
    problems, page_anchors = [], {}
    pages = sorted(p for p in files if p.endswith(".md"))
    for path in pages:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        if path == "README.md" and text.count("\n") > README_CAP:
            problems.append(f"README.md:{README_CAP + 1}: {text.count(chr(10))} lines, over the cap of {README_CAP}: "
                            "move the detail to a page under docs/ and link it")
        if path.startswith(PURPOSE_DIRS) and os.path.basename(path) != "report.md":
            check_purpose(path, text, problems)
        check_links(root, path, text, files, folders, page_anchors, problems)
    for p in problems:
        print(p)
    if not problems:
        print(f"check-docs: {len(pages)} pages: README within {README_CAP} lines, purpose lines present, links resolve")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
