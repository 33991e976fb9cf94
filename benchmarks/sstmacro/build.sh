#!/usr/bin/env bash
# Build SST/macro (Sandia's Structural Simulation Toolkit, macroscale; standalone, without SST
# core) from source: the packet-level reference the dragonfly benchmarks check our models against
# (`python -m benchmarks.app_time_dragonfly --simulator sstmacro`).  Never needed by the library or
# its tests.
#
#   bash benchmarks/sstmacro/build.sh [--source SRC] [--dumpi SRC] [--prefix DIR] [--jobs N] [--rebuild]
#
# SRC: a source tree, a git repository or a bare git directory (a mirror) of
# sstsimulator/sst-macro (--source) and sstsimulator/sst-dumpi (--dumpi, its submodule); without
# them both are cloned from GitHub.  The commits below are checked out of a repository; a plain
# tree is used as it is.  Installs into DIR (default: $SSTMACRO_PREFIX, else
# ${XDG_CACHE_HOME:-~/.cache}/mpitaskmap/sstmacro, where benchmarks/harness/sstmacro.py looks; the
# build itself happens beside it, in DIR-build, removed when done): bin/sstmac (the simulator),
# bin/sst++ (the compiler wrapper for simulated MPI programs).  Idempotent: a finished install of
# the same commits is kept unless --rebuild.
#
# Seen here (Debian 12, GCC 12, 2 cores): about 11 minutes, nearly all of it `make`.  Needs g++,
# autoconf, automake, libtool, patch and python3-config (Debian: python3-dev).  Exits non-zero on any
# failure.
#
# One fix is applied (PATCHES): at the pinned commit the cascade topology (Aries' row/column groups)
# routes between groups by another formula than the one that wires its global ports, so a packet
# can leave on a port with no link and the run ends without the program finishing (seen: halo3d
# inside one group ran, across groups printed nothing).  cascade-routing.patch makes its router
# look for the groups its ports are wired to.
set -euo pipefail

#: SST/macro master of 2026-05-01 (v16.0.0) and the sst-dumpi master it builds with (the submodule's
#: own pin, 97d96d9b, is not on sst-dumpi's master: a mirror of the repository may lack it).
SSTMACRO_COMMIT=15d5cd25
DUMPI_COMMIT=a4c8bf5
#: Our fixes to that commit, applied in order (each patch file names what it fixes); part of the install's stamp.
PATCHES=(cascade-routing.patch)

SOURCE=""
DUMPI=""
PREFIX="${SSTMACRO_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/mpitaskmap/sstmacro}"
JOBS="$(nproc 2>/dev/null || echo 2)"
REBUILD=0
while (($#)); do
  case "$1" in
    --source) SOURCE="$2"; shift 2 ;;
    --dumpi) DUMPI="$2"; shift 2 ;;
    --prefix) PREFIX="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    *) printf 'usage: %s [--source SRC] [--dumpi SRC] [--prefix DIR] [--jobs N] [--rebuild]\n' "$0" >&2; exit 2 ;;
  esac
done

say() { printf '[sstmacro] %s\n' "$*"; }
die() { printf '[sstmacro] ERROR: %s\n' "$*" >&2; exit 1; }

STAMP="$PREFIX/.mpitaskmap-build"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WANT="sst-macro $SSTMACRO_COMMIT sst-dumpi $DUMPI_COMMIT patches ${PATCHES[*]}"
if ((REBUILD == 0)) && [[ -x "$PREFIX/bin/sstmac" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
  say "already built: $PREFIX/bin/sstmac ($WANT)"
  exit 0
fi

for tool in g++ autoreconf libtoolize make; do
  command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install g++ autoconf automake libtool make)"
done
PYCONFIG="$(command -v python3-config || true)"
[[ -n "$PYCONFIG" ]] || die "python3-config not found (Debian: apt-get install python3-dev)"

WORK="$PREFIX-build"
rm -rf "$WORK"
mkdir -p "$WORK"

# export(REPO_OR_TREE, COMMIT, URL, DEST): the commit's files into DEST
export_source() {
  local from="$1" commit="$2" url="$3" dest="$4"
  mkdir -p "$dest"
  if [[ -z "$from" ]]; then
    say "cloning $url"
    git clone -q "$url" "$WORK/clone-$(basename "$dest")" || die "cannot clone $url (give --source/--dumpi)"
    from="$WORK/clone-$(basename "$dest")"
  fi
  if git --git-dir="$from" rev-parse -q --verify "$commit^{commit}" >/dev/null 2>&1; then
    git --git-dir="$from" archive "$commit" | tar -x -C "$dest"
  elif git -C "$from" rev-parse -q --verify "$commit^{commit}" >/dev/null 2>&1; then
    git -C "$from" archive "$commit" | tar -x -C "$dest"
  elif [[ -f "$from/configure.ac" || -f "$from/Makefile.am" ]]; then
    say "$from: a source tree without commit $commit, used as it is"
    cp -a "$from/." "$dest/"
  else
    die "$from: neither a repository holding $commit nor a source tree"
  fi
}

SRC="$WORK/sst-macro"
export_source "$SOURCE" "$SSTMACRO_COMMIT" https://github.com/sstsimulator/sst-macro.git "$SRC"
rm -rf "$SRC/sst-dumpi"
export_source "$DUMPI" "$DUMPI_COMMIT" https://github.com/sstsimulator/sst-dumpi.git "$SRC/sst-dumpi"
for fix in "${PATCHES[@]}"; do
  say "patch $fix"
  patch -s -d "$SRC" -p1 < "$HERE/$fix" || die "cannot apply $HERE/$fix to sst-macro $SSTMACRO_COMMIT"
done

# bootstrap.sh wants a .git directory (it runs git submodule): its steps, by hand
say "autoreconf"
(cd "$SRC" && libtoolize -q && (cd sst-dumpi && libtoolize -q) && autoreconf --force --install) \
  > "$WORK/bootstrap.log" 2>&1 || die "autoreconf failed: $WORK/bootstrap.log"

mkdir -p "$WORK/obj"
say "configure (prefix $PREFIX)"
(cd "$WORK/obj" && "$SRC/configure" --prefix="$PREFIX" --with-python-config="$PYCONFIG") \
  > "$WORK/configure.log" 2>&1 || die "configure failed: $WORK/configure.log"
say "make -j$JOBS (about 10 minutes on 2 cores)"
(cd "$WORK/obj" && make -j"$JOBS") > "$WORK/make.log" 2>&1 || die "make failed: tail $WORK/make.log"
(cd "$WORK/obj" && make install) > "$WORK/install.log" 2>&1 || die "make install failed: $WORK/install.log"

[[ -x "$PREFIX/bin/sstmac" && -x "$PREFIX/bin/sst++" ]] || die "no sstmac / sst++ under $PREFIX/bin"
printf '%s\n' "$WANT" > "$STAMP"
rm -rf "$WORK"
say "built: $PREFIX/bin/sstmac, $PREFIX/bin/sst++ ($WANT)"
