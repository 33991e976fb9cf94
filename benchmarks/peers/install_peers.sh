#!/usr/bin/env bash
# Install the optional benchmark peers of mpitaskmap (never needed by the library
# or its tests) and build our Zoltan2 driver.
#
#   bash benchmarks/peers/install_peers.sh            # install + build
#   bash benchmarks/peers/install_peers.sh --rebuild  # force recompiling the driver
#
# Idempotent: apt packages that are already installed are skipped (apt-get update
# runs at most once, and only when something is missing); the driver is rebuilt
# only when its source is newer than the binary (or with --rebuild).
#
# Peers:
#   * Zoltan2 (Trilinos 13.2, Debian) -> benchmarks/peers/build/zoltan2_map
#   * Scotch 7 (Debian libscotch-dev, used from Python through ctypes)
#   * KaHIP 3.25 (PyPI wheel "kahip", into the Python that runs the benchmarks: $PYTHON, else
#     the repository's .venv/bin/python, else python3; its lib/libkahip.so is used through ctypes)
# Needs root (or sudo) for apt-get. Exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/build"
SRC="$HERE/zoltan2_driver.cpp"
EXE="$BUILD/zoltan2_map"
REBUILD=0
[[ "${1:-}" == "--rebuild" ]] && REBUILD=1

say()  { printf '[install_peers] %s\n' "$*"; }
die()  { printf '[install_peers] ERROR: %s\n' "$*" >&2; exit 1; }

APT_PKGS=(
  # Zoltan2 and the Trilinos packages its headers pull in (zoltan2-dev alone is not enough)
  libtrilinos-zoltan2-dev libtrilinos-tpetra-dev libtrilinos-teuchos-dev
  libtrilinos-kokkos-dev libtrilinos-xpetra-dev libtrilinos-kokkos-kernels-dev
  libtrilinos-zoltan-dev libtrilinos-epetra-dev libtrilinos-epetraext-dev
  # compiler + MPI wrapper used to build the driver
  g++ libopenmpi-dev openmpi-bin
  # Scotch static mapping library (ctypes from benchmarks/peers/scotch.py) and CLI tools
  libscotch-dev scotch
)

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || die "not root and no sudo: cannot apt-get install"
  SUDO="sudo"
fi
command -v apt-get >/dev/null || die "apt-get not found (this script targets Debian 12)"

missing=()
for p in "${APT_PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  say "apt packages to install: ${missing[*]}"
  say "apt-get update"
  $SUDO apt-get update -q || die "apt-get update failed"
  say "apt-get install (this downloads ~300 MB the first time)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed"
else
  say "all apt packages already installed"
fi

# ---- sanity checks ----------------------------------------------------------
[[ -f /usr/include/trilinos/Zoltan2_TaskMapping.hpp ]] \
  || die "Zoltan2_TaskMapping.hpp not found under /usr/include/trilinos"
command -v mpicxx >/dev/null || die "mpicxx not found"
SCOTCH_SO=/usr/lib/x86_64-linux-gnu/scotch-int32/libscotch.so
[[ -e "$SCOTCH_SO" ]] || SCOTCH_SO=$(ldconfig -p | awk '/libscotch-7\.0\.so /{print $NF; exit}')
[[ -n "$SCOTCH_SO" && -e "$SCOTCH_SO" ]] || die "libscotch (7.0) shared library not found"
say "Scotch library: $SCOTCH_SO"

# ---- KaHIP (PyPI wheel: the kaffpa binaries and libkahip.so with process_mapping) ----
KAHIP_VERSION=3.25
PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  if [[ -x "$HERE/../../.venv/bin/python" ]]; then PY="$HERE/../../.venv/bin/python"; else PY=python3; fi
fi
command -v "$PY" >/dev/null || die "no Python '$PY' to install KaHIP into (set PYTHON=...)"
if [[ "$("$PY" -c 'import importlib.metadata as m; print(m.version("kahip"))' 2>/dev/null)" == "$KAHIP_VERSION" ]]; then
  say "kahip $KAHIP_VERSION already installed for $PY"
else
  say "pip install kahip==$KAHIP_VERSION into $PY"
  "$PY" -m pip install -q "kahip==$KAHIP_VERSION" || die "pip install kahip==$KAHIP_VERSION failed"
fi
# benchmarks/peers/kahip.py (our wrapper, benchmarks.peers.kahip from the repository root) loads the wheel's lib/libkahip.so
(cd "$HERE/../.." && "$PY" -c 'import sys; from benchmarks.peers import kahip
r = kahip.kahip_missing(); print("[install_peers] " + (r or "kahip " + kahip.kahip_version() + ": process_mapping ok"))
sys.exit(1 if r else 0)') || die "KaHIP installed but its library cannot be loaded (see above)"

# ---- build the Zoltan2 driver ------------------------------------------------
mkdir -p "$BUILD"
if [[ $REBUILD -eq 1 || ! -x "$EXE" || "$SRC" -nt "$EXE" ]]; then
  LIBS=()
  for l in zoltan2 tpetra tpetraext tpetrainout tpetraclassic kokkoscore kokkoscontainers \
           kokkosalgorithms kokkoskernels teuchoscore teuchoscomm teuchosnumerics \
           teuchosparameterlist teuchosparser teuchoskokkoscomm teuchoskokkoscompat \
           zoltan epetra epetraext; do
    LIBS+=("-ltrilinos_$l")
  done
  say "compiling $SRC -> $EXE (~15-30 s)"
  # Debian's Kokkos is built with the Serial backend only; Trilinos headers are noisy, so the
  # compiler output goes to build/compile.log and is shown only on failure.
  if ! mpicxx -O2 -std=c++17 -Wno-deprecated-declarations -I/usr/include/trilinos \
        -o "$EXE.tmp" "$SRC" "${LIBS[@]}" >"$BUILD/compile.log" 2>&1; then
    tail -n 60 "$BUILD/compile.log" >&2
    die "compiling the Zoltan2 driver failed (full log: $BUILD/compile.log)"
  fi
  mv -f "$EXE.tmp" "$EXE"
else
  say "driver up to date: $EXE"
fi

# ---- quick self-test of the driver -------------------------------------------
if out=$("$EXE" --selftest 2>"$BUILD/selftest.err"); then
  say "driver $out"
else
  cat "$BUILD/selftest.err" >&2; die "driver self-test failed"
fi
say "done. Peers: zoltan2 -> $EXE ; scotch -> libscotch via ctypes (benchmarks/peers/scotch.py) ;" \
    "kahip -> libkahip via ctypes (benchmarks/peers/kahip.py)"
