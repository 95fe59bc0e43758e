#!/usr/bin/env bash
# The configuration reference moved from README.md to docs/reference/config.md
# (issue 40); this name is kept for habit and scripts: it regenerates every
# generated reference page. Same arguments as tools/update-reference.sh.
exec bash "$(dirname "$0")/update-reference.sh" "$@"
