#!/usr/bin/env bash
# The Debian package: `scripts/install --deb` must exit 0 and leave a Debian-named package
# (package_version_arch.deb, no spaces) whose control fields and contents are right; both
# binaries are unpacked from it (dpkg-deb -x, nothing installed) and run. The release build
# is the cost: run after bench/window.sh (scripts/test does), cargo then finds little to rebuild.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
scripts/install --deb
deb="$(ls -t target/release/bundle/deb/*.deb | head -n 1)"
name="$(basename "$deb")"
case "$name" in
  *" "*) echo "FAIL: the package's file name has a space: $name"; exit 1 ;;
esac
want="$(dpkg-deb -f "$deb" Package)_$(dpkg-deb -f "$deb" Version)_$(dpkg-deb -f "$deb" Architecture).deb"
[ "$name" = "$want" ] || { echo "FAIL: $name is not named package_version_arch.deb ($want)"; exit 1; }
[ "$(dpkg-deb -f "$deb" Package)" = "pi-session-explorer" ] || { echo "FAIL: Package is $(dpkg-deb -f "$deb" Package)"; exit 1; }
contents="$(dpkg-deb -c "$deb")"
for b in pi-session pi-session-explorer; do
  echo "$contents" | grep -Eq "(^|[ /.])usr/bin/$b\$" || { echo "FAIL: no usr/bin/$b in $name"; exit 1; }
done
echo "$contents" | grep -Eq 'usr/share/applications/.*\.desktop$' || { echo "FAIL: no .desktop file in $name"; exit 1; }
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
"$root/usr/bin/pi-session" --version
"$root/usr/bin/pi-session-explorer" --version
echo "deb: $name, $(du -k "$deb" | cut -f1) KB, $(( $(date +%s) - started )) s"
echo "1 passed, 0 failed"
