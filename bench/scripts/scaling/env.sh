# sourced: LD_LIBRARY_PATH = this dir, plus cxx/ (libstdc++/libgcc_s of the build machine, need glibc >= 2.36)
D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# sed reads all of ldd's output: `head` would end the pipe early, and the SIGPIPE would stop a caller
# that runs under `set -o pipefail -e`.
gv=$(ldd --version 2>/dev/null | sed -n '1s/.* \([0-9]\+\.[0-9]\+\)$/\1/p')
if [ -n "$gv" ] && [ "$(printf '%s\n' 2.36 "$gv" | sort -V | head -1)" = 2.36 ]; then
  export LD_LIBRARY_PATH=$D:$D/cxx
else
  export LD_LIBRARY_PATH=$D
fi
echo "glibc $gv; LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
