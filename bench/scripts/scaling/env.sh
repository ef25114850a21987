# sourced: LD_LIBRARY_PATH = this dir, plus cxx/ (libstdc++/libgcc_s of the build machine, need glibc >= 2.36)
D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
gv=$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9]\+\.[0-9]\+$')
if [ -n "$gv" ] && [ "$(printf '%s\n' 2.36 "$gv" | sort -V | head -1)" = 2.36 ]; then
  export LD_LIBRARY_PATH=$D:$D/cxx
else
  export LD_LIBRARY_PATH=$D
fi
echo "glibc $gv; LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
