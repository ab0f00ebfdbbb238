#!/usr/bin/env bash
# Write constraints.txt from the venv the committed notebook outputs were built in:
#   bash tools/freeze_constraints.sh [.venv]
# Each pin applies on Python 3.11+ (the 3.10 run of .ci/run takes what 3.10 gets).
set -euo pipefail
venv="${1:-.venv}"
{
    echo "# The versions the committed notebook outputs were made with (pip freeze of the"
    echo "# build's venv, Python $("$venv/bin/python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])'))."
    echo "# Used by the README's commands and .ci/run: pip install -e \".[test,browser]\" -c constraints.txt"
    echo "# Remake with: bash tools/freeze_constraints.sh"
    "$venv/bin/pip" freeze --exclude-editable | grep -v -i "^retrylab" | sort -f \
        | sed 's/$/ ; python_version >= "3.11"/'
} > constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) pins"
