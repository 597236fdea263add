#!/usr/bin/env bash
# Install dpderive and what it needs on a fresh Debian machine:
# TeX Live + latexmk + poppler (for the PDF appendix), then the Python package.
#   ./install.sh          the package (core dependencies)
#   ./install.sh --test   the package with the extras the tests need: test and distributed (pytest,
#                         hypothesis, dask), interop (dp-accounting), opacus (opacus, torch==2.13.0
#                         CPU), risk (riskcal, the risk comparison's peer)
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v latexmk >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    texlive-latex-base texlive-latex-recommended latexmk poppler-utils >/dev/null
fi
extra=""
if [ "${1:-}" = "--test" ]; then extra="[test,distributed,interop,opacus,risk]"; fi
python3 -m pip install -q --disable-pip-version-check -e ".${extra}"
