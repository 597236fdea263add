#!/usr/bin/env bash
# CI: the repository stands alone (issue 24). A clone of the committed HEAD in a temporary folder with no
# ../shared beside it runs README's second quick-start command and passes (the provenance tests skip, with
# their one summary line), and `dpderive check --json` there gives every claim the verdict it has here.
#
# The clone's ./install.sh re-points the editable install at the clone; on exit (pass or fail) this
# checkout is installed again, so later steps and the machine's final state use this checkout.
# Time: one more run of the whole suite (11 min in CI) plus two uncached `dpderive check` runs of all 372
# claims and two editable installs: ~20-25 min, so .ci/run (~35 min) stays well inside CI's 90 min.
#   .ci/standalone.sh                     as CI runs it
#   STANDALONE_PYTEST_ARGS="tests/x.py"   only to try this script itself on a subset (CI leaves it unset)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd -P)
HEAD=$(git rev-parse HEAD)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpderive-standalone.XXXXXX")
CLONE="$TMP/dpderive"

restore() {
  status=$?
  echo "standalone: reinstalling $REPO (editable)"
  (cd "$REPO" && env -u PYTHONPATH ./install.sh --test) || status=1
  where=$(cd / && env -u PYTHONPATH python3 -c "import dpderive, os; print(os.path.realpath(dpderive.__file__))")
  case "$where" in "$REPO"/*) ;; *) echo "standalone: dpderive imports from $where, not $REPO" >&2; status=1 ;; esac
  rm -rf "$TMP"
  exit $status
}
trap restore EXIT

verdicts() {   # claim id -> verdict, from `check --json` on stdin
  python3 -c 'import json, sys; print(json.dumps({r["id"]: r["verdict"] for r in json.load(sys.stdin)}, sort_keys=True))'
}

echo "standalone: verdicts of this checkout ($HEAD)"
PYTHONPATH="$REPO" python3 -m dpderive.cli check --json --no-cache 2> "$TMP/full.err" | verdicts > "$TMP/full.json" \
  || { tail -n 20 "$TMP/full.err" >&2; exit 1; }

git clone -q "$REPO" "$CLONE"
git -C "$CLONE" checkout -q --detach "$HEAD"
test ! -e "$TMP/shared"   # nothing beside the clone: no paper sources

cd "$CLONE"
echo "standalone: README's second command in $CLONE (no ../shared, CI unset)"
# shellcheck disable=SC2086
# The whole suite, slow reproductions included (the first step's suite took 11 min in CI).
env -u CI -u DPDERIVE_SEEDS -u DPDERIVE_CACHE -u PYTHONPATH \
  bash -c "./install.sh --test && python3 -m pytest -q ${STANDALONE_PYTEST_ARGS:-}" 2>&1 | tee "$TMP/pytest.log"
# (pipefail: a failing install or pytest fails this script here)
grep -qE "^SKIPPED \[[0-9]+\] tests/conftest.py:[0-9]+: provenance tests: the paper sources are not at " "$TMP/pytest.log" \
  || { echo "standalone: no provenance skip line in the clone's pytest summary" >&2; exit 1; }

where=$(env -u PYTHONPATH python3 -c "import dpderive, os; print(os.path.realpath(dpderive.__file__))")
case "$where" in "$CLONE"/*) ;; *) echo "standalone: the clone's check would import $where" >&2; exit 1 ;; esac
echo "standalone: verdicts of the clone"
env -u CI -u DPDERIVE_SEEDS -u PYTHONPATH dpderive check --json --no-cache 2> "$TMP/clone.err" | verdicts > "$TMP/clone.json" \
  || { tail -n 20 "$TMP/clone.err" >&2; exit 1; }

python3 - "$TMP/full.json" "$TMP/clone.json" <<'EOF'
import json, sys
full, clone = (json.load(open(p)) for p in sys.argv[1:])
diff = {k: (full.get(k), clone.get(k)) for k in sorted(set(full) | set(clone)) if full.get(k) != clone.get(k)}
if diff or not full:
    sys.exit(f"standalone: verdicts differ between this checkout and the clone (checkout, clone): {diff}")
print(f"standalone: {len(full)} claims, the same verdict in the clone as in this checkout")
EOF
