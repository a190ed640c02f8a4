#!/usr/bin/env bash
# The test command of the README: installs what a fresh machine lacks, builds, and runs every test.
#   ./tests/run.sh            (from the repository root, or anywhere: it finds the root itself)
# CPU tests always run. GPU tests run where an sm_90a (H100/H200) or sm_100a (B200/GB200) GPU is present and
# are reported as Skipped (not Passed) elsewhere. SASS tests read the compiled kernels with cuobjdump. The
# CUTLASS cross-check compares our encodings with CuTe's own builders (headers of the nvidia-cutlass wheel).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GEMM_BUILD_DIR:-$root/build}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "tests/run.sh: need root (or sudo) to run: $*" >&2; exit 1; fi; }

# 1. Catch2 2.x, Debian's package.
if [ ! -f /usr/include/catch2/catch.hpp ] && [ ! -f /usr/local/include/catch2/catch.hpp ]; then
  echo "== installing Catch2 (apt-get install catch2)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq catch2 >/dev/null
fi

# 2. cuobjdump and nvdisasm for the SASS tests: from the toolkit if it has them, else the PyPI wheels.
have_sass_tools() {
  { command -v cuobjdump >/dev/null && command -v nvdisasm >/dev/null; } && return 0
  python3 - <<'PY' 2>/dev/null
import glob, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
ok = all(any(glob.glob(d + '/nvidia/cu*/bin/' + t) for d in dirs) for t in ('cuobjdump', 'nvdisasm'))
sys.exit(0 if ok else 1)
PY
}
if ! have_sass_tools; then
  echo "== installing cuobjdump and nvdisasm (pip: nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)"
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore \
    "nvidia-cuda-cuobjdump==13.*" "nvidia-cuda-nvdisasm==13.*"
fi

# 3. CUTLASS/CuTe headers for the cross-check test (tests/test_cutlass_crosscheck.cpp), a second oracle for
#    the encodings. Test-only: the stage binaries never include CUTLASS. Pinned (keep in step with
#    tests/CMakeLists.txt); --no-deps because only the C++ headers are used, not the wheel's Python package.
CUTLASS_WHEEL_VERSION=4.2.0.0
have_cutlass() {
  python3 - "$CUTLASS_WHEEL_VERSION" <<'PY' 2>/dev/null
import importlib.metadata as m, importlib.util as u, os, sys
spec = u.find_spec('cutlass_library')
ok = (m.version('nvidia-cutlass') == sys.argv[1] and spec is not None and os.path.isfile(
    os.path.join(spec.submodule_search_locations[0], 'source/include/cute/arch/mma_sm100_desc.hpp')))
sys.exit(0 if ok else 1)
PY
}
if ! have_cutlass; then
  echo "== installing the CUTLASS headers (pip: nvidia-cutlass==$CUTLASS_WHEEL_VERSION, --no-deps)"
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
    "nvidia-cutlass==$CUTLASS_WHEEL_VERSION"
fi

# 4. Configure, build, test.
echo "== configuring and building in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)"
echo "== running the tests"
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)"
