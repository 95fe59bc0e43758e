#!/usr/bin/python3
"""The size budget of docs/design.md ("Budgets"): at most 400 lines a
file and 60 lines a function, tables exempt. Run by tools/check-style.sh.

    tools/size_budget.py FILE...    prints `path:line: what` per violation; exit 1 if any

Function length: from the line of a function definition's opening brace to the
line of its closing brace, both counted (a one-line function is 1 line). A
function is a brace block outside any other function whose head (the text since
the previous `;`, `{` or `}`) ends in `)`, optionally followed by qualifiers
(const, noexcept, override, final, mutable, &, &&) or a trailing return type:
free and member functions, constructors, lambdas at namespace scope and Catch2's
TEST_CASE bodies. Lambdas and blocks inside a function count as part of it.

Tables are exempt from both budgets (their lines do not count toward the file's
400 either). A table is
  1. a function whose whole body is one `return {...};` (a list of rows), or
  2. a braced initializer outside any function (`... = {...};`), or
  3. a brace block outside any function with the comment `// size-budget: table`
     on the line above its head or anywhere in its head.

Comments, string and character literals (raw strings included) and preprocessor
lines are blanked before braces are matched; code that puts unbalanced braces in
#if branches can confuse it.
"""
import re
import sys

FILE_BUDGET = 400
FUNCTION_BUDGET = 60
TABLE_MARKER = "size-budget: table"
QUALIFIER_TAIL = re.compile(r"(\s*(const|noexcept|override|final|mutable|volatile|&&|&))+\s*$")
TRAILING_RETURN = re.compile(r"->\s*[\w:<>,\s*&\[\]]+$")
TABLE_BODY = re.compile(r"^\s*return\s*\{.*\}\s*;\s*$", re.DOTALL)


def _skip_literal(text, i, out):
    """Blanks the string or character literal starting at text[i]; returns the index after it."""
    quote = text[i]
    if quote == '"' and i > 0 and text[i - 1] == "R":  # raw string R"delim(...)delim"
        open_paren = text.index("(", i)
        close = ")" + text[i + 1 : open_paren] + '"'
        end = text.find(close, open_paren)
        end = len(text) if end < 0 else end + len(close)
    else:
        end = i + 1
        while end < len(text) and text[end] != quote and text[end] != "\n":
            end += 2 if text[end] == "\\" else 1
        end = min(end + 1, len(text))
    out.append(quote + "".join(c if c == "\n" else " " for c in text[i + 1 : end - 1]) + quote)
    return end


def blank_non_code(text):
    """The text with comments, literals and preprocessor lines blanked; newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isdigit())):
            i = _skip_literal(text, i, out)
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def is_function_head(head):
    h = head.strip()
    for _ in range(3):
        h = TRAILING_RETURN.sub("", QUALIFIER_TAIL.sub("", h)).rstrip()
    return h.endswith(")") and not re.match(r"^(if|for|while|switch|catch)\b", h)


def check_file(path):
    raw = open(path, encoding="utf-8", errors="replace").read()
    raw_lines = raw.split("\n")
    code = blank_non_code(raw)
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, ch in enumerate(code):
        line_of[k] = line
        line += ch == "\n"
    line_of[len(code)] = line

    def head_line(head_start, brace):  # the line where a block's head begins
        head = code[head_start:brace]
        return line_of[head_start + len(head) - len(head.lstrip())]

    def marked(head_start, brace):
        first = head_line(head_start, brace)
        return any(TABLE_MARKER in raw_lines[k - 1] for k in range(max(1, first - 1), line_of[brace] + 1))

    violations, table_lines, stack, boundary = [], set(), [], 0
    for k, ch in enumerate(code):
        if ch == "{":
            head = code[boundary:k]
            in_function = any(kind == "function" for kind, *_ in stack)
            if in_function:
                kind = "inner"
            elif is_function_head(head):
                kind = "function"
            elif head.rstrip().endswith("="):
                kind = "initializer"
            else:
                kind = "scope"
            stack.append((kind, k, boundary))
            boundary = k + 1
        elif ch == "}" and stack:
            kind, start, head_start = stack.pop()
            first, last = line_of[start], line_of[k]
            table = (
                kind == "initializer"
                or (kind == "function" and TABLE_BODY.match(code[start + 1 : k]))
                or (kind != "inner" and marked(head_start, start))
            )
            if table:
                table_lines.update(range(first, last + 1))
            elif kind == "function" and last - first + 1 > FUNCTION_BUDGET:
                name = raw_lines[head_line(head_start, start) - 1].strip()[:80]
                violations.append(f"{path}:{first}: function of {last - first + 1} lines (budget {FUNCTION_BUDGET}): {name}")
            boundary = k + 1
        elif ch == ";":
            boundary = k + 1
    counted = len(raw_lines) - (1 if raw.endswith("\n") else 0) - len(table_lines)
    if counted > FILE_BUDGET:
        exempt = f", {len(table_lines)} table lines not counted" if table_lines else ""
        violations.insert(0, f"{path}:1: file of {counted} lines (budget {FILE_BUDGET}{exempt})")
    return violations


def main(paths):
    violations = [v for p in paths for v in check_file(p)]
    for v in violations:
        print(v)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
